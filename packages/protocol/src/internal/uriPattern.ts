/**
 * The pattern language of the resource rules as a small automaton run without backtracking: every
 * character of the URI is looked at once against the set of pattern positions still alive, so a
 * match costs at most (URI length) × (pattern positions) steps, whatever the pattern. A regular
 * expression with two `[\s\S]*` (two `**`) backtracks quadratically on a URI that almost matches.
 *
 * Positions: a literal character (consumed exactly), `*` and `{var}` (any run without `/`), `**`,
 * `{+var}` and `{#var}` (any run), `{/var}` (nothing, or `/` and then any run).
 */

const literal = 0
const segmentRun = 1
const anyRun = 2
const slashThenRun = 3

/** A compiled pattern: one kind per position (and the character of a literal one); the last position accepts. */
export interface Program {
  readonly kinds: Uint8Array
  readonly chars: Uint16Array
  readonly size: number
  /** The same positions as bit masks, for patterns of at most {@link maxBitPositions} positions. */
  readonly bits: Bits | undefined
}

/** Position sets as bits of one 32-bit integer: bit p for position p, bit `size` accepts. */
interface Bits {
  /** Literal positions by character (ASCII). */
  readonly ascii: Int32Array
  /** Literal positions by character (beyond ASCII). */
  readonly other: ReadonlyMap<number, number>
  readonly segmentRuns: number
  readonly anyRuns: number
  readonly slashThenRuns: number
  readonly accept: number
}

/** The longest pattern (in positions) run on bit masks; longer ones run on position lists. */
export const maxBitPositions = 30

const bitsOf = (kinds: ReadonlyArray<number>, chars: ReadonlyArray<number>): Bits | undefined => {
  if (kinds.length > maxBitPositions) return undefined
  const ascii = new Int32Array(128)
  const other = new Map<number, number>()
  let segmentRuns = 0
  let anyRuns = 0
  let slashThenRuns = 0
  kinds.forEach((kind, p) => {
    const bit = 1 << p
    if (kind === literal) {
      const c = chars[p]!
      if (c < 128) ascii[c]! |= bit
      else other.set(c, (other.get(c) ?? 0) | bit)
    } else if (kind === segmentRun) segmentRuns |= bit
    else if (kind === anyRun) anyRuns |= bit
    else slashThenRuns |= bit
  })
  return { ascii, other, segmentRuns, anyRuns, slashThenRuns, accept: 1 << kinds.length }
}

const slash = 0x2f

/** One piece of a pattern before it becomes positions. */
export type Piece =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "segmentRun" }
  | { readonly _tag: "anyRun" }
  | { readonly _tag: "slashThenRun" }

/** The pieces of a pattern: its literal text, `*`, `**` and template expressions. */
export const pieces = (pattern: string): ReadonlyArray<Piece> => {
  const out: Array<Piece> = []
  let text = ""
  const flush = () => {
    if (text !== "") out.push({ _tag: "text", text })
    text = ""
  }
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "*") {
      flush()
      if (pattern[i + 1] === "*") {
        out.push({ _tag: "anyRun" })
        i += 2
      } else {
        out.push({ _tag: "segmentRun" })
        i += 1
      }
    } else if (c === "{") {
      const end = pattern.indexOf("}", i + 1)
      if (end === -1) {
        text += pattern.slice(i)
        break
      }
      flush()
      const operator = pattern[i + 1]
      out.push(
        operator === "+" || operator === "#"
          ? { _tag: "anyRun" }
          : operator === "/"
            ? { _tag: "slashThenRun" }
            : { _tag: "segmentRun" }
      )
      i = end + 1
    } else {
      text += c
      i += 1
    }
  }
  flush()
  return out
}

/** The program of a pattern's pieces; adjacent runs merge (a run next to `**` is `**`). */
export const compilePieces = (list: ReadonlyArray<Piece>): Program => {
  const kinds: Array<number> = []
  const chars: Array<number> = []
  const push = (kind: number, char = 0) => {
    kinds.push(kind)
    chars.push(char)
  }
  // the run that ends `{/var}` is reached only through its `/`: nothing merges into it
  let groupTail = false
  for (const piece of list) {
    const last = kinds.length === 0 || groupTail ? -1 : kinds[kinds.length - 1]!
    const lastIsRun = last === segmentRun || last === anyRun
    groupTail = false
    switch (piece._tag) {
      case "text":
        for (let i = 0; i < piece.text.length; i++) push(literal, piece.text.charCodeAt(i))
        break
      case "segmentRun":
        if (!lastIsRun) push(segmentRun)
        break
      case "anyRun":
        if (lastIsRun) kinds[kinds.length - 1] = anyRun
        else push(anyRun)
        break
      case "slashThenRun":
        // after `**` it adds nothing; otherwise `/` then any run, both skippable
        if (last === anyRun) break
        push(slashThenRun, slash)
        push(anyRun)
        groupTail = true
        break
    }
  }
  return {
    kinds: Uint8Array.from(kinds),
    chars: Uint16Array.from(chars),
    size: kinds.length,
    bits: bitsOf(kinds, chars)
  }
}

/** The program of a pattern, taken as written. */
export const compile = (pattern: string): Program => compilePieces(pieces(pattern))

/** Counts the steps of runs (tests and the reliability figures read it). */
export interface StepCounter {
  steps: number
}

/**
 * True when the program matches the whole string; `counter.steps` grows by one per position alive per
 * character looked at. Short patterns run on bit masks ({@link runBits}), others on position lists
 * ({@link runList}); both give the same answer and the same steps.
 */
export const run = (program: Program, input: string, counter?: StepCounter): boolean =>
  program.bits === undefined ? runList(program, input, counter) : runBits(program.bits, input, counter)

const popcount = (n: number): number => {
  let v = n - ((n >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

/** The run on bit masks: a handful of integer operations per character, whatever is alive. */
export const runBits = (bits: Bits, input: string, counter?: StepCounter): boolean => {
  const { ascii, other, segmentRuns, anyRuns, slashThenRuns, accept } = bits
  const runs = segmentRuns | anyRuns
  // adds the positions reachable without a character: after a run its next position, after `{/…}`'s
  // optional `/` the position after its run
  const closure = (set: number): number => {
    let current = set
    for (;;) {
      const grown = current | ((current & runs) << 1) | ((current & slashThenRuns) << 2)
      if (grown === current) return current
      current = grown
    }
  }
  let alive = closure(1)
  let steps = 0
  for (let i = 0; i < input.length; i++) {
    if (counter !== undefined) steps += popcount(alive)
    const ch = input.charCodeAt(i)
    const literals = ch < 128 ? ascii[ch]! : (other.get(ch) ?? 0)
    let next = (alive & literals) << 1
    if (ch === slash) next |= (alive & anyRuns) | ((alive & slashThenRuns) << 1)
    else next |= alive & runs
    alive = closure(next)
    if (alive === 0) break
  }
  if (counter !== undefined) counter.steps += steps
  return (alive & accept) !== 0
}

/** The run on position lists (any pattern length). */
export const runList = (program: Program, input: string, counter?: StepCounter): boolean => {
  const { kinds, chars, size } = program
  // `mark[p] === generation` when position p is already in the set being built
  const mark = new Int32Array(size + 1).fill(-1)
  let current = new Int32Array(size + 1)
  let next = new Int32Array(size + 1)
  let currentLength = 0
  let nextLength = 0
  let generation = 0
  // adds a position and the positions reachable from it without a character
  const add = (start: number, into: Int32Array, length: number): number => {
    let position = start
    let n = length
    for (;;) {
      if (mark[position] === generation) return n
      mark[position] = generation
      into[n++] = position
      if (position === size) return n
      const kind = kinds[position]!
      if (kind === segmentRun || kind === anyRun) position += 1
      else if (kind === slashThenRun) position += 2
      else return n
    }
  }
  currentLength = add(0, current, 0)
  let steps = 0
  for (let i = 0; i < input.length; i++) {
    const ch = input.charCodeAt(i)
    generation += 1
    nextLength = 0
    for (let j = 0; j < currentLength; j++) {
      const position = current[j]!
      steps += 1
      if (position === size) continue
      switch (kinds[position]) {
        case literal:
          if (chars[position] === ch) nextLength = add(position + 1, next, nextLength)
          break
        case segmentRun:
          if (ch !== slash) nextLength = add(position, next, nextLength)
          break
        case anyRun:
          nextLength = add(position, next, nextLength)
          break
        default:
          if (ch === slash) nextLength = add(position + 1, next, nextLength)
      }
    }
    const swap = current
    current = next
    next = swap
    currentLength = nextLength
    if (currentLength === 0) break
  }
  if (counter !== undefined) counter.steps += steps
  for (let j = 0; j < currentLength; j++) if (current[j] === size) return true
  return false
}
