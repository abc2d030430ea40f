/**
 * Host resource rules (docs/policy.md): which resource URIs of which server the model, the direct and
 * threadless reads, the widget reads and the skills reads may see. One matcher for every reader.
 *
 * `*` matches within one path segment (no `/`), `**` across segments (anything). A URI template
 * expression in a pattern matches what it can expand to: `{var}`, `{.var}`, `{;var}`, `{?var}`,
 * `{&var}` within one segment, `{/var}` a run of `/`-led segments, `{+var}` and `{#var}` anything.
 * Deny wins over allow; without an allow list everything not denied is allowed.
 *
 * A decision judges the URI in its normalized form (RFC 3986 section 6: scheme and host case,
 * percent-encodings, dot segments; see `internal/uriNormal.ts`), so that no other spelling of a denied
 * URI reaches it through a server that normalizes; a URI whose meaning depends on how the server reads
 * it (an encoded `/`, an empty segment, a `..` above the root …) is refused and the refusal says why.
 * A deny pattern also applies to the URI without its query, fragment or trailing `/`. Matching runs
 * without backtracking: at most (URI length) × (pattern length) steps.
 *
 * Every reader asks one question, {@link access}: what may this principal (the config in force, with a
 * thread's deny patterns when the read is on a thread) see of this server. The model tools (their lists
 * and reads), the direct and threadless `mcp/resource/read`, the widget reads, the skills reads and the
 * search all go through it; {@link guardRead} is the refusal of a read, before any request.
 */
import { Effect } from "effect"
import type { Config } from "./Config.js"
import * as Errors from "./Errors.js"
import * as UriNormal from "./internal/uriNormal.js"
import * as UriPattern from "./internal/uriPattern.js"
import * as Messages from "./Messages.js"

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
      /** Set when the URI was refused unjudged: what in it the rules cannot judge. */
      readonly unjudgeable?: string
    }

/** A compiled pattern. */
export type Pattern = UriPattern.Program

/** The pattern as written, for matching a string as given (no normalization). */
export const compile = (pattern: string): Pattern => UriPattern.compile(pattern)

/** The pattern in the form decisions use: scheme and host in lower case, its literal text normalized like a URI's. */
export const compileNormalized = (pattern: string): Pattern =>
  UriPattern.compilePieces(
    UriPattern.pieces(UriNormal.patternPrefix(pattern)).map((piece) =>
      piece._tag === "text" ? { _tag: "text", text: UriNormal.percent(piece.text, false, true) } : piece
    )
  )

/** True when `pattern` matches the whole string `uri` as given (case-sensitive, nothing decoded). */
export const matches = (pattern: string, uri: string): boolean => UriPattern.run(compile(pattern), uri)

/** The steps a match of `uri` against `pattern` takes (at most the URI's length times the pattern's). */
export const matchSteps = (pattern: string, uri: string): number => {
  const counter = { steps: 0 }
  UriPattern.run(compile(pattern), uri, counter)
  return counter.steps
}

/** The form of a URI that decisions judge, or what in it the rules cannot judge. */
export const normalize = (uri: string): UriNormal.Normalized => UriNormal.normalize(uri)

/** Decides URIs under one rule set, its patterns compiled once. */
export interface Matcher {
  /** The decision for a URI (normalized first; refused unjudged when it cannot be normalized). */
  readonly decide: (uri: string) => Decision
  /** The decision for a URI template's text taken as a URI (as written when it cannot be normalized). */
  readonly decideTemplate: (uriTemplate: string) => Decision
}

/** The matcher of a rule set. */
export const matcher = (rules: Rules): Matcher => {
  const deny = rules.deny.map((pattern) => ({ pattern, program: compileNormalized(pattern) }))
  const allow = rules.allow?.map((pattern) => ({ pattern, program: compileNormalized(pattern) }))
  const judge = (uri: string): Decision => {
    const forms = UriNormal.denyForms(uri)
    for (const { pattern, program } of deny) {
      for (const form of forms)
        if (UriPattern.run(program, form)) return { allowed: false, rule: { list: "deny", pattern } }
    }
    if (allow === undefined) return { allowed: true }
    for (const { pattern, program } of allow) {
      if (UriPattern.run(program, uri)) return { allowed: true, rule: { list: "allow", pattern } }
    }
    return { allowed: false }
  }
  return {
    decide: (uri) => {
      const normalized = UriNormal.normalize(uri)
      return normalized._tag === "judged" ? judge(normalized.uri) : { allowed: false, unjudgeable: normalized.what }
    },
    decideTemplate: (uriTemplate) => {
      const normalized = UriNormal.normalize(uriTemplate)
      return judge(normalized._tag === "judged" ? normalized.uri : uriTemplate)
    }
  }
}

/** The decision of `rules` for `uri`: deny first, then the allow list (absent: allowed). */
export const decide = (rules: Rules, uri: string): Decision => matcher(rules).decide(uri)

/** True when `rules` allow `uri`. */
export const isAllowed = (rules: Rules, uri: string): boolean => decide(rules, uri).allowed

/**
 * A listed template is hidden when its text, taken as a URI, is denied (every expansion of
 * `file:///home/{user}` is under `file:///home/**`); its expansions are still checked when read.
 */
export const isTemplateListed = (rules: Rules, uriTemplate: string): boolean =>
  matcher(rules).decideTemplate(uriTemplate).allowed

/** The message of a refused read of `uri`: denied by the rules, or not judged (saying why). */
export const refusal = (uri: string, decision: Decision): string =>
  !decision.allowed && decision.unjudgeable !== undefined
    ? Messages.policy.readUnjudgeable(uri, decision.unjudgeable)
    : Messages.policy.readDenied(uri)

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
export const check = (config: Config, server: string, uri: string, threadDeny: ReadonlyArray<string> = []): Decision =>
  access({ config, threadDeny }, server).read(uri)

/**
 * Who reads or lists: the config in force and, for a read or list on a thread, the thread's own deny
 * patterns (`thread/start` `config.resources.deny`).
 */
export interface Principal {
  readonly config: Config
  readonly threadDeny?: ReadonlyArray<string> | undefined
}

/** What is listed: a resource (judged by its URI) or a template (judged by its text taken as a URI). */
export type EntryKind = "resource" | "template"

/** What one principal may see of one server, its rules compiled once. */
export interface Access {
  /** The rules in force; `undefined` when none applies (every output exactly as without policy). */
  readonly rules: Rules | undefined
  /** The decision on a read of `uri` (normalized first; refused unjudged when it cannot be normalized). */
  readonly read: (uri: string) => Decision
  /**
   * Whether a listed entry stays: a resource when its URI is allowed, a template when its text taken
   * as a URI is (every expansion of a denied template text is denied; see {@link isTemplateListed}).
   */
  readonly listed: (kind: EntryKind, key: string) => boolean
}

const unruled: Access = { rules: undefined, read: () => ({ allowed: true }), listed: () => true }

/** The one owner of the rules' answer: what `principal` may read and list of `server`. */
export const access = (principal: Principal, server: string): Access => {
  const rules = forServer(principal.config, server, principal.threadDeny ?? [])
  if (rules === undefined) return unruled
  const compiled = matcher(rules)
  return {
    rules,
    read: compiled.decide,
    listed: (kind, key) => (kind === "resource" ? compiled.decide(key) : compiled.decideTemplate(key)).allowed
  }
}

/** True when any rule may apply to what `principal` reads or lists (any server's rules, or a thread deny). */
export const applies = (principal: Principal): boolean => hasRules(principal.config, principal.threadDeny ?? [])

/**
 * A read of `uri` of `server` by `principal`: refused with the {@link refusal} message (an
 * `AccessError`) when the rules deny it or cannot judge it, before any request.
 */
export const guardRead = (
  principal: Principal,
  server: string,
  uri: string
): Effect.Effect<void, Errors.AccessError> => {
  const decision = access(principal, server).read(uri)
  return decision.allowed ? Effect.void : Effect.fail(new Errors.AccessError({ message: refusal(uri, decision) }))
}
