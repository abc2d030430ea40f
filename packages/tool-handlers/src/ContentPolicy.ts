/**
 * The content policy of the extended tool profile, one for every output (resource reads and MCP tool
 * results): images become image parts (up to `[tools] max_image_bytes`), text-like blobs are decoded
 * as text, other binary is described. Base64 never reaches the model's text. Each blob is decoded
 * once: the part made of it is kept beside the content object (a cached read result is the same
 * object, so a later window decodes nothing); an image keeps only its hash, a text blob its decoded
 * bytes once (its text is decoded from them when rendered).
 */
import { createHash } from "node:crypto"
import { Mcp } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Either } from "effect"

/** The image MIME types sent as images. */
export const imageMimeTypes: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

/** An image sent to the model as an image part. */
export interface ImagePart {
  readonly _tag: "image"
  readonly mimeType: string
  /** The base64 data, as the server sent it. */
  readonly data: string
  /** Decoded bytes. */
  readonly size: number
  /** SHA-256 of the decoded bytes, hex. */
  readonly sha256: string
}

/** Text: given as text, or a text-like blob decoded from UTF-8. */
export interface TextPart {
  readonly _tag: "text"
  readonly text: string
  /** The UTF-8 bytes of the text (built once, on demand). */
  readonly bytes: () => Buffer
  /** True when it was a blob. */
  readonly decoded: boolean
}

/** Content that is not sent: why, and its size. */
export interface DescribedPart {
  readonly _tag: "described"
  readonly mimeType: string | undefined
  readonly size: number
  readonly reason: "binary" | "imageTooLarge" | "notUtf8"
}

/** What the policy makes of one content. */
export type Part = ImagePart | TextPart | DescribedPart

/** The policy's limits. */
export interface Options {
  readonly maxImageBytes: number
}

/** The MIME type without parameters, lower case (`Text/Plain; charset=utf-8` → `text/plain`). */
export const essence = (mimeType: string | undefined): string | undefined => {
  if (mimeType === undefined) return undefined
  const semicolon = mimeType.indexOf(";")
  const value = (semicolon === -1 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase()
  return value === "" ? undefined : value
}

const textApplications = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/csv",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/typescript",
  "application/x-typescript",
  "application/sql",
  "application/graphql",
  "application/x-sh",
  "application/x-httpd-php",
  "application/x-ndjson",
  "application/jsonl",
  "application/markdown",
  "application/x-tex",
  "application/rtf"
])

/** Text-like: `text/*`, JSON, XML, YAML, CSV, JavaScript and the like (also `+json`, `+xml`, `+yaml` types such as SVG). */
export const isTextLike = (mimeType: string | undefined): boolean => {
  const type = essence(mimeType)
  if (type === undefined) return false
  return (
    type.startsWith("text/") ||
    textApplications.has(type) ||
    type.endsWith("+json") ||
    type.endsWith("+xml") ||
    type.endsWith("+yaml")
  )
}

/** An image type sent as an image (`image/jpg` counts as JPEG). */
export const imageType = (mimeType: string | undefined): string | undefined => {
  const type = essence(mimeType)
  if (type === "image/jpg") return "image/jpeg"
  return type !== undefined && imageMimeTypes.includes(type) ? type : undefined
}

const parts = new WeakMap<object, Part>()
const textBytes = new WeakMap<object, Buffer>()

/** The byte size of base64 text without decoding it. */
export const base64Size = (base64: string): number => {
  let padding = 0
  if (base64.endsWith("==")) padding = 2
  else if (base64.endsWith("=")) padding = 1
  return Math.floor(((base64.length - padding) * 3) / 4)
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The text of `owner` (a text content) as a {@link TextPart}; its UTF-8 bytes are built once. */
export const textPart = (owner: object, text: string): TextPart => ({
  _tag: "text",
  text,
  decoded: false,
  bytes: () => {
    let bytes = textBytes.get(owner)
    if (bytes === undefined) {
      bytes = Buffer.from(text, "utf8")
      textBytes.set(owner, bytes)
    }
    return bytes
  }
})

/**
 * What the policy makes of a blob held by `owner` (its content object): an image, text, or a
 * description. Invalid base64 is refused (`Left` with the problem). Decided once per owner.
 */
export const blobPart = (
  owner: object,
  base64: string,
  mimeType: string | undefined,
  options: Options
): Either.Either<Part, string> => {
  const known = parts.get(owner)
  if (known !== undefined) return Either.right(known)
  if (!Mcp.isBase64(base64)) return Either.left("is not valid base64")
  let part: Part
  const image = imageType(mimeType)
  if (image !== undefined) {
    const size = base64Size(base64)
    part =
      size > options.maxImageBytes
        ? { _tag: "described", mimeType, size, reason: "imageTooLarge" }
        : {
            _tag: "image",
            mimeType: image,
            data: base64,
            size,
            // the hash is all that is needed of the bytes: they are not kept beside the (cached) base64
            sha256: createHash("sha256").update(Buffer.from(base64, "base64")).digest("hex")
          }
  } else if (isTextLike(mimeType)) {
    const bytes = Buffer.from(base64, "base64")
    let valid: boolean
    try {
      utf8.decode(bytes)
      valid = true
    } catch {
      valid = false
    }
    // the part keeps the decoded bytes once; its text is decoded from them when rendered
    part = valid
      ? {
          _tag: "text",
          get text() {
            return bytes.toString("utf8")
          },
          decoded: true,
          bytes: () => bytes
        }
      : { _tag: "described", mimeType, size: bytes.length, reason: "notUtf8" }
  } else {
    part = { _tag: "described", mimeType, size: base64Size(base64), reason: "binary" }
  }
  parts.set(owner, part)
  return Either.right(part)
}

/** A text kept by the resource client as its UTF-8 bytes: those bytes are used, no other copy is made. */
const keptTextPart = (bytes: Buffer): TextPart => ({
  _tag: "text",
  get text() {
    return bytes.toString("utf8")
  },
  decoded: false,
  bytes: () => bytes
})

/** The part of a read result's content item. */
export const contentsPart = (item: Mcp.ResourceContents, options: Options): Either.Either<Part, string> => {
  if (!Mcp.isTextContents(item)) return blobPart(item, item.blob, item.mimeType, options)
  const kept = ResourceClient.textBytes(item)
  return Either.right(kept === undefined ? textPart(item, item.text) : keptTextPart(kept))
}

/** `image/png, 68 bytes` or `no MIME type, 68 bytes` */
const kindAndSize = (mimeType: string | undefined, size: number): string =>
  `${mimeType === undefined ? "no MIME type" : mimeType}, ${size} bytes`

/** The model-facing description of a part that is not text (what it is and what was done with it). */
export const describe = (part: ImagePart | DescribedPart, options: Options, imageNumber?: number): string => {
  if (part._tag === "image") {
    return `image ${kindAndSize(part.mimeType, part.size)}: sent as image part${imageNumber === undefined ? "" : ` ${imageNumber}`}`
  }
  switch (part.reason) {
    case "imageTooLarge":
      return `image ${kindAndSize(part.mimeType, part.size)}: over max_image_bytes (${options.maxImageBytes}), bytes not sent`
    case "notUtf8":
      return `binary ${kindAndSize(part.mimeType, part.size)}: not valid UTF-8 text, bytes not sent`
    default:
      return `binary ${kindAndSize(part.mimeType, part.size)}: bytes not sent`
  }
}
