/**
 * The digest of a resource body: SHA-256 (lowercase hex) and byte size of the bytes the server
 * returned — a text item's UTF-8 bytes, a blob item's decoded bytes — per content item and for the
 * whole `resources/read` result. Change detection compares them; reads record them.
 */
import { createHash } from "node:crypto"
import type { ResourceContents } from "./Mcp.js"

/** The SHA-256 (hex) and byte size of one body. */
export interface Digest {
  readonly digest: string
  readonly size: number
}

/** The digest of a whole read result and of each of its content items, in order. */
export interface ContentsDigest extends Digest {
  readonly items: ReadonlyArray<Digest>
}

const ofBytes = (bytes: Uint8Array): Digest => ({
  digest: createHash("sha256").update(bytes).digest("hex"),
  size: bytes.byteLength
})

/** The digest of a text (its UTF-8 bytes). */
export const ofText = (text: string): Digest => ofBytes(Buffer.from(text, "utf8"))

/** The digest of one content item: a text's UTF-8 bytes, a blob's decoded bytes. */
export const ofItem = (item: ResourceContents): Digest =>
  "text" in item ? ofText(item.text) : ofBytes(Buffer.from(item.blob, "base64"))

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
