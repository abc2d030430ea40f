/** Strings measured and ordered by their UTF-8 bytes, as the wire and the specs count and sort them. */

/** The byte length of the UTF-8 encoding of `s` (a lone surrogate counts as U+FFFD, 3 bytes, as `TextEncoder` writes it). */
export const byteLength = (s: string): number => Buffer.byteLength(s, "utf8")

/** Orders two strings by the bytes of their UTF-8 encodings (not by UTF-16 code units, as `<` does). */
export const compareBytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))
