/**
 * Skill URIs (skills.md section 3, rule S(max)) and the text rules of skill entries: whitespace
 * collapsing, control characters and HTML escaping. Pure functions.
 */

/** The longest package URI of a catalog entry and of a read's `package`. */
export const maxPackageUriLength = 1024

/** The longest `resource` URI of a read. */
export const maxResourceUriLength = 2048

const forbiddenInUri = /[\p{Cc}\p{White_Space}<>]/u
const whitespaceRun = /\p{White_Space}+/gu
const controlCharacter = /\p{Cc}/u

/** The number of characters (Unicode code points) of a string. */
export const characterCount = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/** True when the string contains a control character (Unicode `Cc`). */
export const hasControlCharacter = (s: string): boolean => controlCharacter.test(s)

/** Runs of white space become one space; leading and trailing white space is removed. */
export const collapseWhitespace = (s: string): string => s.replace(whitespaceRun, " ").replace(/^ | $/g, "")

/** `&`, `<`, `>` become `&amp;`, `&lt;`, `&gt;` (`&` first). */
export const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** The parts of a valid skill URI. */
export interface SkillUri {
  readonly host: string
  /** The `/`-separated path segments, each non-empty, as serialized. */
  readonly segments: ReadonlyArray<string>
}

/** Parses a skill URI under rule S(max); `undefined` when it is not valid. */
export const parseSkillUri = (s: string, max: number): SkillUri | undefined => {
  if (characterCount(s) > max || forbiddenInUri.test(s)) return undefined
  // A query or fragment (even an empty one) needs `?` or `#`, which cannot appear elsewhere in a URL.
  if (s.includes("?") || s.includes("#")) return undefined
  let url: URL
  try {
    url = new URL(s)
  } catch {
    return undefined
  }
  if (url.protocol !== "skill:" || url.href !== s) return undefined
  if (url.host === "" || url.username !== "" || url.password !== "" || url.port !== "") return undefined
  if (!url.pathname.startsWith("/")) return undefined
  const segments = url.pathname.slice(1).split("/")
  if (segments.some((segment) => segment === "")) return undefined
  return { host: url.hostname, segments }
}

/** Rule S(max): a `skill://host/seg[/seg…]` URI that serializes to itself, without credentials, port, query or fragment. */
export const isValidSkillUri = (s: string, max: number): boolean => parseSkillUri(s, max) !== undefined

/**
 * The containment check of a read (skills.md section 4, check 1): both URIs are valid (package
 * S(1024), resource S(2048)), share scheme and host, and the resource's segments strictly extend the
 * package's.
 */
export const resourceBelongsToPackage = (pkg: string, resource: string): boolean => {
  const p = parseSkillUri(pkg, maxPackageUriLength)
  const r = parseSkillUri(resource, maxResourceUriLength)
  if (p === undefined || r === undefined || p.host !== r.host) return false
  return r.segments.length > p.segments.length && p.segments.every((segment, i) => r.segments[i] === segment)
}
