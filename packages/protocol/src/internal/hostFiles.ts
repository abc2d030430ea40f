/**
 * Other hosts' config files (docs/config.md, "Other hosts' files"): which top-level keys of such a
 * file are left unread, and the `${…}` variables of their server entries. Only the JSON server maps
 * of those hosts (`mcpServers`, VS Code's `servers`) are expanded; the TOML form never is.
 */
import { Either } from "effect"

/** The top-level keys that hold another host's server map. */
export const hostServerKeys = ["mcpServers", "servers"] as const

/** One of {@link hostServerKeys}. */
export type HostServerKey = (typeof hostServerKeys)[number]

/** The environment `${VAR}` reads. */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * The top-level keys of another host's file (one holding `mcpServers` or `servers`) besides its
 * server map: that host's own settings, which are not read (`mcp_servers` is kept, so that a file
 * mixing the forms is refused). Empty for any other file.
 */
export const unreadKeys = (raw: Readonly<Record<string, unknown>>): Array<string> =>
  hostServerKeys.some((key) => key in raw)
    ? Object.keys(raw).filter(
        (key) => key !== "mcp_servers" && !(hostServerKeys as ReadonlyArray<string>).includes(key)
      )
    : []

const variable = /\$\{([^}]*)\}/g
const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Why one `${…}` cannot be expanded: the problem of its key. */
const unset = (name: string) => `environment variable ${name} is not set (write \${${name}:-default} to give a default)`

/**
 * Expands `${VAR}`, `${VAR:-default}` (the default when VAR is unset or empty) and `${env:VAR}` in
 * one string. An unset variable without a default, VS Code's `${input:ID}` (a prompt no one here can
 * answer) and any other `${…}` are refused with the problem (the value itself is never quoted).
 */
export const expand = (text: string, env: Environment): Either.Either<string, string> => {
  let problem: string | undefined
  const out = text.replace(variable, (whole, inner: string) => {
    if (problem !== undefined) return whole
    const fallback = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(inner)
    if (fallback !== null) {
      const value = env[fallback[1]!]
      return value === undefined || value === "" ? fallback[2]! : value
    }
    const name = inner.startsWith("env:") ? inner.slice(4) : inner
    if (namePattern.test(name)) {
      const value = env[name]
      if (value === undefined) problem = unset(name)
      return value ?? whole
    }
    problem = inner.startsWith("input:")
      ? `\`\${${inner}}\` is a VS Code input prompt, which mcp-resources cannot show; put the value in an environment variable and write \`\${env:NAME}\``
      : `unsupported variable \`\${${inner}}\`: only \`\${VAR}\`, \`\${VAR:-default}\` and \`\${env:VAR}\` are expanded`
    return whole
  })
  return problem === undefined ? Either.right(out) : Either.left(problem)
}

/** The string fields of a host's server entry that are expanded. */
export interface Expandable {
  readonly command?: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  readonly url?: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * Expands every `${…}` of an entry's `command`, `args`, `env` values, `cwd`, `url` and `headers`
 * values; the failure is the key (relative to the entry, e.g. `env.TOKEN`, `args[1]`) and the problem.
 */
export const expandEntry = <E extends Expandable>(
  entry: E,
  env: Environment
): Either.Either<E, { readonly key: string; readonly problem: string }> => {
  let failure: { key: string; problem: string } | undefined
  const one = (key: string, text: string): string => {
    if (failure !== undefined) return text
    const expanded = expand(text, env)
    if (Either.isLeft(expanded)) {
      failure = { key, problem: expanded.left }
      return text
    }
    return expanded.right
  }
  const map = (key: string, record: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(record).map(([name, value]) => [name, one(`${key}.${name}`, value)]))
  const out: E = {
    ...entry,
    ...(entry.command !== undefined ? { command: one("command", entry.command) } : {}),
    ...(entry.args !== undefined ? { args: entry.args.map((arg, i) => one(`args[${i}]`, arg)) } : {}),
    ...(entry.env !== undefined ? { env: map("env", entry.env) } : {}),
    ...(entry.cwd !== undefined ? { cwd: one("cwd", entry.cwd) } : {}),
    ...(entry.url !== undefined ? { url: one("url", entry.url) } : {}),
    ...(entry.headers !== undefined ? { headers: map("headers", entry.headers) } : {})
  }
  return failure === undefined ? Either.right(out) : Either.left(failure)
}
