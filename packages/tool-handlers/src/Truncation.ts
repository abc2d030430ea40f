/**
 * Middle truncation of model-facing output (resource-tools.md section 10). Measures the UTF-8 size
 * with one native pass and finds the character boundaries by walking UTF-16 code units from each end,
 * so the work beyond `Buffer.byteLength` is bounded by the budget (linear on 64 MiB payloads).
 */
import { Truncation } from "@mcp-resources/protocol"
import { byteLength } from "@mcp-resources/protocol/Utf8"

/** `{mode: "bytes" | "tokens", limit}`: protocol's Truncation owns the policy and its effective limit. */
type TruncationPolicy = Truncation.TruncationPolicy

/** The result of {@link splitMiddle}: the kept prefix and suffix and how many characters lie between. */
export interface Split {
  readonly removed: number
  readonly prefix: string
  readonly suffix: string
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff

/** UTF-8 bytes of a code unit that is not part of a surrogate pair (a lone surrogate encodes as U+FFFD: 3). */
const unitBytes = (unit: number): number => (unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3)

/** Characters (code points; a lone surrogate is one) in `s[from, to)`, where both ends are character boundaries. */
const countCharacters = (s: string, from: number, to: number): number => {
  let count = 0
  for (let i = from; i < to; i++) {
    const unit = s.charCodeAt(i)
    if (isHigh(unit) && i + 1 < to && isLow(s.charCodeAt(i + 1))) i++
    count++
  }
  return count
}

/** `s[from, to)` as UTF-8 would round-trip it: a lone surrogate becomes U+FFFD. */
const wellFormed = (s: string, from: number, to: number, lone: boolean): string => {
  const part = s.slice(from, to)
  return lone ? (part as unknown as { toWellFormed(): string }).toWellFormed() : part
}

/** One token is estimated as 4 bytes: `ceil(byteLength(s) / 4)`. */
export const approxTokens = (s: string): number => Math.ceil(byteLength(s) / 4)

/** A cut of a string in code units, and whether the kept part met a lone surrogate. */
interface Cut {
  readonly at: number
  readonly lone: boolean
}

/** The end (in code units) of the leading characters of `s` that end within `headBytes`. */
const prefixCut = (s: string, headBytes: number): Cut => {
  const units = s.length
  let lone = false
  let end = 0
  let used = 0
  while (end < units) {
    const unit = s.charCodeAt(end)
    let size: number
    let width = 1
    if (isHigh(unit) && end + 1 < units && isLow(s.charCodeAt(end + 1))) {
      size = 4
      width = 2
    } else {
      size = unitBytes(unit)
      if (unit >= 0xd800 && unit <= 0xdfff) lone = true
    }
    if (used + size > headBytes) break
    used += size
    end += width
  }
  return { at: end, lone }
}

/** The start (in code units, never before `floor`) of the trailing characters of `s` that lie within its last `tailBytes`. */
const suffixCut = (s: string, tailBytes: number, floor: number): Cut => {
  let lone = false
  let start = s.length
  let taken = 0
  while (start > floor) {
    const unit = s.charCodeAt(start - 1)
    let size: number
    let width = 1
    if (isLow(unit) && start - 2 >= floor && isHigh(s.charCodeAt(start - 2))) {
      size = 4
      width = 2
    } else {
      size = unitBytes(unit)
      if (unit >= 0xd800 && unit <= 0xdfff) lone = true
    }
    if (taken + size > tailBytes) break
    taken += size
    start -= width
  }
  return { at: start, lone }
}

/**
 * The split of `s` (of `length` UTF-8 bytes): the prefix is the leading characters ending within
 * `headBytes`, the suffix the trailing characters starting at or after `length - tailBytes`, never
 * before the prefix ends. `removed` is counted only when `count` is set (else 0).
 */
const splitUnits = (s: string, length: number, headBytes: number, tailBytes: number, count: boolean): Split => {
  const prefix = prefixCut(s, Math.min(Math.max(headBytes, 0), length))
  const suffix = suffixCut(s, Math.max(tailBytes, 0), prefix.at)
  const lone = prefix.lone || suffix.lone
  return {
    removed: count ? countCharacters(s, prefix.at, suffix.at) : 0,
    prefix: wellFormed(s, 0, prefix.at, lone),
    suffix: wellFormed(s, suffix.at, s.length, lone)
  }
}

/**
 * Splits `s` on character boundaries: the prefix is every leading character that ends within
 * `headBytes`, the suffix starts at the first character starting at or after `byteLength - tailBytes`
 * (never before the prefix ends); `removed` counts the characters in neither part.
 */
export const splitMiddle = (s: string, headBytes: number, tailBytes: number): Split =>
  splitUnits(s, byteLength(s), headBytes, tailBytes, true)

/** `…{N} chars truncated…` or `…{N} tokens truncated…` */
export const marker = (count: number, unit: "chars" | "tokens"): string => `…${count} ${unit} truncated…`

const middle = (s: string, length: number, maxBytes: number, unit: "chars" | "tokens"): string => {
  if (s === "") return ""
  if (maxBytes <= 0) {
    return marker(unit === "tokens" ? Math.ceil(length / 4) : countCharacters(s, 0, s.length), unit)
  }
  if (length <= maxBytes) return s
  const head = Math.floor(maxBytes / 2)
  const split = splitUnits(s, length, head, maxBytes - head, unit === "chars")
  const count = unit === "chars" ? split.removed : Math.ceil((length - maxBytes) / 4)
  return split.prefix + marker(count, unit) + split.suffix
}

/** Truncates `s` under a policy that is already effective (no ×1.2 here), section 10.2. */
export const truncateText = (s: string, policy: TruncationPolicy): string => {
  if (s === "") return ""
  const length = byteLength(s)
  if (policy.mode === "bytes") return middle(s, length, policy.limit, "chars")
  const budget = policy.limit * 4
  if (policy.limit > 0 && length <= budget) return s
  return middle(s, length, budget, "tokens")
}

const anySurrogate = /[\ud800-\udfff]/

/** Characters (code points; a lone surrogate is one) of the concatenation of `pieces`. */
const countPieceCharacters = (pieces: ReadonlyArray<string>): number => {
  let count = 0
  let previous = 0
  for (const piece of pieces) {
    if (piece.length === 0) continue
    // a pair split across two pieces is one character
    if (isHigh(previous) && isLow(piece.charCodeAt(0))) count--
    count += anySurrogate.test(piece) ? countCharacters(piece, 0, piece.length) : piece.length
    previous = piece.charCodeAt(piece.length - 1)
  }
  return count
}

/** The first `n` code units of the concatenation of `pieces`. */
const firstUnits = (pieces: ReadonlyArray<string>, n: number): string => {
  let out = ""
  for (const piece of pieces) {
    const rest = n - out.length
    if (rest <= 0) break
    out += piece.length <= rest ? piece : piece.slice(0, rest)
  }
  return out
}

/** The last `n` code units of the concatenation of `pieces`. */
const lastUnits = (pieces: ReadonlyArray<string>, n: number): string => {
  let out = ""
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i]!
    const rest = n - out.length
    if (rest <= 0) break
    out = (piece.length <= rest ? piece : piece.slice(piece.length - rest)) + out
  }
  return out
}

/**
 * Truncates the concatenation of `pieces` under an effective policy: exactly
 * `truncateText(pieces.join(""), policy)`, but when the text is over the budget only its two ends are
 * ever built, so a large piece is measured (one native pass) and never copied.
 */
export const truncatePieces = (pieces: ReadonlyArray<string>, policy: TruncationPolicy): string => {
  if (pieces.length === 1) return truncateText(pieces[0]!, policy)
  let length = 0
  let units = 0
  let previous = 0
  for (const piece of pieces) {
    if (piece.length === 0) continue
    // a pair split across two pieces is 4 bytes, not two lone surrogates of 3
    if (isHigh(previous) && isLow(piece.charCodeAt(0))) length -= 2
    length += byteLength(piece)
    units += piece.length
    previous = piece.charCodeAt(piece.length - 1)
  }
  const unit = policy.mode === "bytes" ? "chars" : "tokens"
  const maxBytes = policy.mode === "bytes" ? policy.limit : policy.limit * 4
  if (units === 0) return ""
  if (maxBytes <= 0) {
    return marker(unit === "tokens" ? Math.ceil(length / 4) : countPieceCharacters(pieces), unit)
  }
  const head = Math.floor(maxBytes / 2)
  const tail = maxBytes - head
  // within the budget: the whole text; too short for the two ends to be apart: as one string
  if (length <= maxBytes) return pieces.join("")
  if (units <= head + tail + 2) return truncateText(pieces.join(""), policy)
  // one unit more than each end can hold, so that a surrogate pair is never cut at the edge
  const headText = firstUnits(pieces, head + 1)
  const tailText = lastUnits(pieces, tail + 1)
  const prefixAt = prefixCut(headText, head)
  const suffixAt = suffixCut(tailText, tail, 0)
  const lone = prefixAt.lone || suffixAt.lone
  const prefix = wellFormed(headText, 0, prefixAt.at, lone)
  const suffix = wellFormed(tailText, suffixAt.at, tailText.length, lone)
  const count =
    unit === "chars"
      ? countPieceCharacters(pieces) -
        countCharacters(headText, 0, prefixAt.at) -
        countCharacters(tailText, suffixAt.at, tailText.length)
      : Math.ceil((length - maxBytes) / 4)
  return prefix + marker(count, unit) + suffix
}

/** {@link truncatePieces} under a configured policy (the effective limit `ceil(limit * 1.2)` first). */
export const truncatePiecesOutput = (pieces: ReadonlyArray<string>, configured: TruncationPolicy): string =>
  truncatePieces(pieces, Truncation.effective(configured))

/** Truncates model output under a configured policy: applies the effective limit `ceil(limit * 1.2)` first. */
export const truncateOutput = (s: string, configured: TruncationPolicy): string =>
  truncateText(s, Truncation.effective(configured))
