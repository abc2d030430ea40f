/**
 * Middle truncation of model-facing output (resource-tools.md section 10). Works on the UTF-8 bytes
 * of the text with byte offsets only, so it stays linear on 64 MiB payloads.
 */
import { Truncation } from "@mcp-resources/protocol"

/** `{mode: "bytes" | "tokens", limit}` (re-exported from protocol). */
export type TruncationPolicy = Truncation.TruncationPolicy

/** The result of {@link splitMiddle}: the kept prefix and suffix and how many characters lie between. */
export interface Split {
  readonly removed: number
  readonly prefix: string
  readonly suffix: string
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

/** Characters (code points) in `bytes[from, to)`: every byte that is not a continuation byte starts one. */
const countCharacters = (bytes: Buffer, from: number, to: number): number => {
  let count = 0
  for (let i = from; i < to; i++) {
    if (!isContinuation(bytes[i]!)) count++
  }
  return count
}

/** The UTF-8 byte length of `s`. */
export const byteLength = (s: string): number => Buffer.byteLength(s, "utf8")

/** One token is estimated as 4 bytes: `ceil(byteLength(s) / 4)`. */
export const approxTokens = (s: string): number => Math.ceil(byteLength(s) / 4)

const splitBytes = (bytes: Buffer, headBytes: number, tailBytes: number): Split => {
  const length = bytes.length
  // The prefix ends where the character that contains byte `headBytes` starts.
  let prefixEnd = Math.min(Math.max(headBytes, 0), length)
  while (prefixEnd > 0 && prefixEnd < length && isContinuation(bytes[prefixEnd]!)) prefixEnd--
  // The suffix starts at the first character that starts at or after `length - tailBytes`.
  let suffixStart = Math.max(length - Math.max(tailBytes, 0), 0)
  while (suffixStart < length && isContinuation(bytes[suffixStart]!)) suffixStart++
  suffixStart = Math.max(suffixStart, prefixEnd)
  return {
    removed: countCharacters(bytes, prefixEnd, suffixStart),
    prefix: bytes.toString("utf8", 0, prefixEnd),
    suffix: bytes.toString("utf8", suffixStart, length)
  }
}

/**
 * Splits `s` on character boundaries: the prefix is every leading character that ends within
 * `headBytes`, the suffix starts at the first character starting at or after `byteLength - tailBytes`
 * (never before the prefix ends); `removed` counts the characters in neither part.
 */
export const splitMiddle = (s: string, headBytes: number, tailBytes: number): Split =>
  splitBytes(Buffer.from(s, "utf8"), headBytes, tailBytes)

/** `…{N} chars truncated…` or `…{N} tokens truncated…` */
export const marker = (count: number, unit: "chars" | "tokens"): string => `…${count} ${unit} truncated…`

const middle = (s: string, maxBytes: number, unit: "chars" | "tokens"): string => {
  if (s === "") return ""
  const length = byteLength(s)
  if (maxBytes <= 0) {
    if (unit === "tokens") return marker(Math.ceil(length / 4), unit)
    const bytes = Buffer.from(s, "utf8")
    return marker(countCharacters(bytes, 0, bytes.length), unit)
  }
  if (length <= maxBytes) return s
  const head = Math.floor(maxBytes / 2)
  const split = splitBytes(Buffer.from(s, "utf8"), head, maxBytes - head)
  const count = unit === "chars" ? split.removed : Math.ceil((length - maxBytes) / 4)
  return split.prefix + marker(count, unit) + split.suffix
}

/** Truncates `s` under a policy that is already effective (no ×1.2 here), section 10.2. */
export const truncateText = (s: string, policy: TruncationPolicy): string => {
  if (policy.mode === "bytes") return middle(s, policy.limit, "chars")
  const budget = policy.limit * 4
  if (policy.limit > 0 && byteLength(s) <= budget) return s
  return middle(s, budget, "tokens")
}

/** Truncates model output under a configured policy: applies the effective limit `ceil(limit * 1.2)` first. */
export const truncateOutput = (s: string, configured: TruncationPolicy): string =>
  truncateText(s, Truncation.effective(configured))

/** The effective policy of a configured one (re-exported from protocol). */
export const effective = Truncation.effective
