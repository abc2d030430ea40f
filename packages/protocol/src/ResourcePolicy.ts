/**
 * Host resource rules (docs/policy.md): which resource URIs of which server the model, the direct
 * read and the call-scoped widget read may see. One matcher for every reader.
 *
 * A pattern matches the URI string exactly as given: case-sensitive, nothing decoded. `*` matches
 * within one path segment (no `/`), `**` across segments (anything). A URI template expression in a
 * pattern matches what it can expand to: `{var}`, `{.var}`, `{;var}`, `{?var}`, `{&var}` within one
 * segment, `{/var}` a run of `/`-led segments, `{+var}` and `{#var}` anything. Deny wins over allow;
 * without an allow list everything not denied is allowed.
 */
import type { Config } from "./Config.js"

/** One rule set: `allow` absent means every URI not denied is allowed. */
export interface Rules {
  readonly allow?: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
}

/** `[resources]` or `[mcp_servers.NAME.resources]` as written (defaults not applied). */
export interface RuleConfig {
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
}

/** What the rules decided for one URI, and the pattern that decided it. */
export type Decision =
  | { readonly allowed: true; readonly rule?: { readonly list: "allow"; readonly pattern: string } }
  | {
      readonly allowed: false
      /** The deny pattern that matched, or absent when the URI matched no allow pattern. */
      readonly rule?: { readonly list: "deny"; readonly pattern: string }
    }

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The regular expression source of one template expression `{…}` (without the braces). */
const expressionSource = (body: string): string => {
  const operator = body[0]
  if (operator === "+" || operator === "#") return "[\\s\\S]*"
  if (operator === "/") return "(?:/[^/]*)*"
  return "[^/]*"
}

const compiled = new Map<string, RegExp>()

/** The anchored regular expression of a pattern (cached: configs repeat the same few patterns). */
export const compile = (pattern: string): RegExp => {
  const cached = compiled.get(pattern)
  if (cached !== undefined) return cached
  let source = ""
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        source += "[\\s\\S]*"
        i += 2
      } else {
        source += "[^/]*"
        i += 1
      }
    } else if (c === "{") {
      const end = pattern.indexOf("}", i + 1)
      if (end === -1) {
        source += escapeRegExp(pattern.slice(i))
        break
      }
      source += expressionSource(pattern.slice(i + 1, end))
      i = end + 1
    } else {
      const next = pattern.slice(i).search(/[*{]/)
      const literal = next === -1 ? pattern.slice(i) : pattern.slice(i, i + next)
      source += escapeRegExp(literal)
      i += literal.length
    }
  }
  const regExp = new RegExp(`^${source}$`, "u")
  if (compiled.size > 4096) compiled.clear()
  compiled.set(pattern, regExp)
  return regExp
}

/** True when `pattern` matches the whole URI string. */
export const matches = (pattern: string, uri: string): boolean => compile(pattern).test(uri)

/** The decision of `rules` for `uri`: deny first, then the allow list (absent: allowed). */
export const decide = (rules: Rules, uri: string): Decision => {
  for (const pattern of rules.deny) {
    if (matches(pattern, uri)) return { allowed: false, rule: { list: "deny", pattern } }
  }
  if (rules.allow === undefined) return { allowed: true }
  for (const pattern of rules.allow) {
    if (matches(pattern, uri)) return { allowed: true, rule: { list: "allow", pattern } }
  }
  return { allowed: false }
}

/** True when `rules` allow `uri`. */
export const isAllowed = (rules: Rules, uri: string): boolean => decide(rules, uri).allowed

/**
 * A listed template is hidden when its text, taken as a URI, is denied (every expansion of
 * `file:///home/{user}` is under `file:///home/**`); its expansions are still checked when read.
 */
export const isTemplateListed = (rules: Rules, uriTemplate: string): boolean => isAllowed(rules, uriTemplate)

/**
 * The effective rules of one server: the deny lists of `[resources]`, the server's table and the
 * thread's config add up; the server's `allow` replaces the `[resources]` one. `undefined` when no
 * rule applies at all (every output exactly as without policy).
 */
export const forServer = (
  config: Config,
  server: string,
  threadDeny: ReadonlyArray<string> = []
): Rules | undefined => {
  const defaults = config.resources
  const own = config.mcpServers.find((entry) => entry.name === server)?.resources
  const allow = own?.allow ?? defaults?.allow
  const deny = [...(defaults?.deny ?? []), ...(own?.deny ?? []), ...threadDeny]
  if (allow === undefined && deny.length === 0) return undefined
  return allow === undefined ? { deny } : { allow, deny }
}

/** True when the config (with the thread's deny rules) has any resource rule for any server. */
export const hasRules = (config: Config, threadDeny: ReadonlyArray<string> = []): boolean =>
  threadDeny.length > 0 ||
  config.resources?.allow !== undefined ||
  (config.resources?.deny?.length ?? 0) > 0 ||
  config.mcpServers.some((entry) => entry.resources?.allow !== undefined || (entry.resources?.deny?.length ?? 0) > 0)

/** The decision for `uri` of `server` under the config and the thread's deny rules (allowed without rules). */
export const check = (
  config: Config,
  server: string,
  uri: string,
  threadDeny: ReadonlyArray<string> = []
): Decision => {
  const rules = forServer(config, server, threadDeny)
  return rules === undefined ? { allowed: true } : decide(rules, uri)
}
