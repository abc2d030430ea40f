/**
 * The one command-line parser of both programs (`mcp-resources-app-server` and `mcp-resources`). Options
 * are declared as data ({@link Option}): the parser reads them, the usage texts are printed from them,
 * and the reference generator (`tooling/reference`) renders the flag tables of `docs/cli.md` from them.
 *
 * Accepted forms: `--name value`, `--name=value` (an empty value too: `--value=`), `--switch`, and `--`
 * after which every argument is positional.
 */

/** One option of a command line. */
export interface Option {
  /** `--name`. */
  readonly name: string
  /** A short form that means the same (`-h`). */
  readonly alias?: string
  /** The placeholder of its value (`PATH`, `N`); absent for a switch that takes no value. */
  readonly value?: string
  /** It may be given several times; every value is kept in order (otherwise the last one counts). */
  readonly repeatable?: boolean
  /** What it does, one sentence or two (printed by `--help` and in the reference). */
  readonly description: string
}

/** A command line the program refuses; the message names what is wrong. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

/** What {@link parse} read. */
export interface Parsed {
  /** The values of each option that takes one, in the order given. */
  readonly values: ReadonlyMap<string, ReadonlyArray<string>>
  /** The switches given. */
  readonly switches: ReadonlySet<string>
  /** The arguments that are not options, in order. */
  readonly positional: ReadonlyArray<string>
}

/** How {@link parse} words a refusal of an argument it does not know. */
export interface ParseOptions {
  /** An option that is not declared (default: `unknown argument: ARG`). */
  readonly unknownOption?: (arg: string) => string
  /** False: a positional argument is refused like an unknown option (the app-server takes none). */
  readonly positional?: boolean
}

/** Reads `argv` against the declared `options`. Throws {@link UsageError}. */
export const parse = (options: ReadonlyArray<Option>, argv: ReadonlyArray<string>, how: ParseOptions = {}): Parsed => {
  const unknown = how.unknownOption ?? ((arg: string) => `unknown argument: ${arg}`)
  const byName = new Map(
    options.flatMap((option) =>
      option.alias === undefined
        ? [[option.name, option] as const]
        : [[option.name, option] as const, [option.alias, option] as const]
    )
  )
  const values = new Map<string, Array<string>>()
  const switches = new Set<string>()
  const positional: Array<string> = []
  const takePositional = (arg: string) => {
    if (how.positional === false) throw new UsageError(unknown(arg))
    positional.push(arg)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      for (const rest of argv.slice(i + 1)) takePositional(rest)
      break
    }
    const alias = byName.get(arg)
    if (!arg.startsWith("--") && (alias === undefined || alias.value !== undefined)) {
      takePositional(arg)
      continue
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const given = eq > 0 ? arg.slice(0, eq) : arg
    const option = byName.get(given)
    if (option === undefined) throw new UsageError(unknown(eq > 0 ? given : arg))
    const name = option.name
    if (option.value === undefined) {
      if (eq > 0) throw new UsageError(`${name} takes no value`)
      switches.add(name)
      continue
    }
    let value: string
    if (eq > 0) value = arg.slice(eq + 1)
    else {
      const next = argv[i + 1]
      if (next === undefined) throw new UsageError(`${name} requires a value`)
      value = next
      i++
    }
    const before = values.get(name)
    if (option.repeatable === true && before !== undefined) before.push(value)
    else values.set(name, [value])
  }
  return { values, switches, positional }
}

/** The last value of an option, or `undefined` when it was not given. */
export const last = (parsed: Parsed, name: string): string | undefined => parsed.values.get(name)?.at(-1)

/** Every value of a repeatable option (none: empty). */
export const all = (parsed: Parsed, name: string): ReadonlyArray<string> => parsed.values.get(name) ?? []

/** `--name VALUE` or `--name`, as in a usage line. */
export const synopsis = (option: Option): string =>
  `${option.name}${option.value === undefined ? "" : ` ${option.value}`}${option.repeatable === true ? "..." : ""}`

/** {@link synopsis} with the short form: `--help, -h`. */
export const forms = (option: Option): string =>
  option.alias === undefined ? synopsis(option) : `${synopsis(option)}, ${option.alias}`

/**
 * Options as a help list: `  --name VALUE   description`, the descriptions aligned and wrapped at
 * `width` (their Markdown code marks dropped).
 */
export const helpList = (options: ReadonlyArray<Option>, width = 100): string => {
  const left = Math.max(...options.map((option) => forms(option).length)) + 4
  return options
    .flatMap((option) => {
      const lines = wrap(option.description.replaceAll("`", ""), Math.max(width - left, 30))
      return lines.map((line, i) => `${i === 0 ? `  ${forms(option)}`.padEnd(left) : " ".repeat(left)}${line}`)
    })
    .join("\n")
}

/** Greedy word wrap. */
const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines
}
