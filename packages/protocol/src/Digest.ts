/**
 * The digest of a body a server returned: SHA-256 (lowercase hex) and size in bytes — a text item's
 * UTF-8 bytes, a blob item's decoded bytes — per content item and for the whole `resources/read`
 * result (docs/templates-and-changes.md, "Detecting changes" and "What changed"). One copy for the
 * read tool, the body store and change detection.
 */
import { createHash } from "node:crypto"
import { sha256OfUtf8 } from "./internal/fastPaths.js"
import type { ResourceContents } from "./Mcp.js"
import { byteLength } from "./Utf8.js"

/** A body's SHA-256 (lowercase hex) and its size in bytes. */
export interface Digest {
  readonly digest: string
  readonly size: number
}

/** The same as {@link Digest}: the digest of one body. */
export type BodyDigest = Digest

/** The digest of a whole read result and of each of its content items, in order. */
export interface ContentsDigest extends Digest {
  readonly items: ReadonlyArray<Digest>
}

/** The digest of these bytes. */
export const ofBytes = (bytes: Uint8Array): Digest => ({
  digest: createHash("sha256").update(bytes).digest("hex"),
  size: bytes.byteLength
})

/** The digest of a text (its UTF-8 bytes, hashed a piece at a time: never copied whole). */
export const ofText = (text: string): Digest => ({ digest: sha256OfUtf8(text), size: byteLength(text) })

/** The digest of one content item: a text's UTF-8 bytes, a blob's decoded bytes. */
export const ofItem = (item: ResourceContents): Digest =>
  "text" in item && typeof item.text === "string"
    ? ofText(item.text)
    : ofBytes(Buffer.from((item as { readonly blob: string }).blob, "base64"))

/**
 * The digest of a read's contents: each item's, and the whole's — the single item's own for one item,
 * else the SHA-256 of the items' digests one a line, with the items' sizes summed.
 */
export const ofContents = (contents: ReadonlyArray<ResourceContents>): ContentsDigest => {
  const items = contents.map(ofItem)
  if (items.length === 1) return { ...items[0]!, items }
  const size = items.reduce((sum, item) => sum + item.size, 0)
  return { digest: ofText(items.map((item) => item.digest).join("\n")).digest, size, items }
}
