/**
 * The digest of a body a server returned: SHA-256 (lowercase hex) and size in bytes, per content item
 * of a read: a text's UTF-8 bytes, a blob's decoded bytes (docs/templates-and-changes.md, "What
 * changed"). One copy for the read tool, the body store and change detection.
 */
import { createHash } from "node:crypto"
import type { ResourceContents } from "./Mcp.js"

/** A body's SHA-256 (lowercase hex) and its size in bytes. */
export interface BodyDigest {
  readonly digest: string
  readonly size: number
}

/** The digest of these bytes. */
export const ofBytes = (bytes: Uint8Array): BodyDigest => ({
  digest: createHash("sha256").update(bytes).digest("hex"),
  size: bytes.byteLength
})

/** The digest of a text's UTF-8 bytes. */
export const ofText = (text: string): BodyDigest => ofBytes(Buffer.from(text, "utf8"))

/** The digest of each content item of a read result: a text's UTF-8 bytes, a blob's decoded bytes. */
export const ofContents = (contents: ReadonlyArray<ResourceContents>): ReadonlyArray<BodyDigest> =>
  contents.map((item) =>
    "text" in item && typeof item.text === "string"
      ? ofText(item.text)
      : ofBytes(Buffer.from((item as { readonly blob: string }).blob, "base64"))
  )
