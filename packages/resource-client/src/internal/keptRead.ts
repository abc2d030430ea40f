/**
 * The form a read kept for windows is cached in (the extended tool profile's windows read large texts
 * as UTF-8 bytes): a rendering concern beside the cache, which stores whatever form it is given and
 * counts the bytes that form holds.
 */

/** A text content at least this long (UTF-16 units) is kept as its UTF-8 bytes by {@link keptRead}. */
export const bytesFormMinLength = 64 * 1024

const keptBytes = new WeakMap<object, Buffer>()

/** The UTF-8 bytes a content of a {@link keptRead} result holds its text in; undefined for any other content. */
export const textBytesOf = (contents: object): Buffer | undefined => keptBytes.get(contents)

/**
 * The form a read kept for windows is cached in: every text content of at least
 * {@link bytesFormMinLength} becomes a copy whose `text` is read from its UTF-8 bytes (the only copy
 * kept: a JavaScript string of non-Latin-1 text takes two bytes a unit beside them). Fields and key
 * order stay as they were, so the JSON text is the same. `size` is what the value holds: its JSON
 * without the kept texts, plus their bytes.
 */
export const keptRead = <A extends { readonly contents: ReadonlyArray<object> }>(
  result: A
): { readonly value: A; readonly size: number } => {
  let kept = 0
  let changed = false
  const contents = result.contents.map((item) => {
    const text = (item as { readonly text?: unknown }).text
    if (typeof text !== "string" || text.length < bytesFormMinLength) return item
    const bytes = Buffer.from(text, "utf8")
    const copy = {}
    for (const [name, value] of Object.entries(item)) {
      Object.defineProperty(
        copy,
        name,
        name === "text"
          ? { enumerable: true, get: () => bytes.toString("utf8") }
          : { enumerable: true, writable: false, value }
      )
    }
    keptBytes.set(copy, bytes)
    kept += bytes.length
    changed = true
    return copy
  })
  if (!changed) return { value: result, size: jsonBytes(result) }
  const value = { ...result, contents } as A
  // the JSON of the rest: the kept texts measured as empty strings
  const rest = {
    ...result,
    contents: result.contents.map((item, i) => (contents[i] === item ? item : { ...item, text: "" }))
  }
  return { value, size: jsonBytes(rest) + kept }
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")
