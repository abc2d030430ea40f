/**
 * Windows over the text of a read result (extended profile). The text of every text content, in
 * order, is one sequence of UTF-8 bytes; a window is a byte range of it that never splits a UTF-8
 * sequence: its start moves back to the start of the character it falls in, its end moves back to
 * the end of the last whole character (at least one character is always given).
 */

/** One content's text in the sequence: where it starts and its bytes. */
export interface Segment {
  readonly index: number
  readonly start: number
  readonly bytes: Buffer
}

/** A window: `[start, end)` of `total` bytes, and the text of each content it touches. */
export interface Window {
  readonly start: number
  readonly end: number
  readonly total: number
  readonly pieces: ReadonlyArray<{ readonly index: number; readonly text: string }>
}

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80

/** The segment holding byte `at` (`at < total`). */
const segmentAt = (segments: ReadonlyArray<Segment>, at: number): Segment | undefined =>
  segments.find((s) => at >= s.start && at < s.start + s.bytes.length)

/** The start of the character holding byte `at`. */
const characterStart = (segments: ReadonlyArray<Segment>, at: number): number => {
  const segment = segmentAt(segments, at)
  if (segment === undefined) return at
  let local = at - segment.start
  while (local > 0 && isContinuation(segment.bytes[local])) local--
  return segment.start + local
}

/** The end of the character starting at `at`. */
const characterEnd = (segments: ReadonlyArray<Segment>, at: number): number => {
  const segment = segmentAt(segments, at)
  if (segment === undefined) return at
  let local = at - segment.start + 1
  while (local < segment.bytes.length && isContinuation(segment.bytes[local])) local++
  return segment.start + local
}

/** The total size of the sequence. */
export const totalOf = (segments: ReadonlyArray<Segment>): number =>
  segments.reduce((sum, s) => sum + s.bytes.length, 0)

/** The window of at most `length` bytes from `offset` (`offset <= total`). */
export const windowOf = (segments: ReadonlyArray<Segment>, offset: number, length: number): Window => {
  const total = totalOf(segments)
  const start = offset >= total ? total : characterStart(segments, offset)
  let end = Math.min(total, start + Math.max(length, 0))
  if (end < total) {
    end = characterStart(segments, end)
    if (end <= start) end = characterEnd(segments, start)
  }
  const pieces: Array<{ index: number; text: string }> = []
  for (const segment of segments) {
    const from = Math.max(start, segment.start)
    const to = Math.min(end, segment.start + segment.bytes.length)
    if (from < to) {
      pieces.push({
        index: segment.index,
        text: segment.bytes.toString("utf8", from - segment.start, to - segment.start)
      })
    }
  }
  return { start, end, total, pieces }
}
