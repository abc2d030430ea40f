/**
 * The form of a URI the resource rules judge (docs/policy.md): RFC 3986 section 6 syntax-based
 * normalization (scheme and host in lower case, percent-encodings in upper case, dot segments
 * removed) and a few scheme-based steps (`file://localhost/` is `file:///`, default ports dropped).
 * Percent-encoded characters are decoded where the encoding cannot change what the URI names: the
 * unreserved characters, the characters that may not appear raw in a URI at all (space, `"`, `<`,
 * `>`, `^`, `` ` ``, `{`, `|`, `}`) and UTF-8 encoded non-ASCII characters. Reserved characters keep
 * their spelling (`%3B` and `;` differ), and so do `%25`, `%3F` and `%23`.
 *
 * A URI whose meaning depends on how a server reads it is not judged at all: an encoded `/` or `\`,
 * a `\`, an empty path segment (`//`), a `..` segment above the root, a control character, a
 * malformed percent-encoding, or a space at either end.
 */

/** The normalized URI, or why it cannot be judged. */
export type Normalized =
  | { readonly _tag: "judged"; readonly uri: string }
  | { readonly _tag: "unjudgeable"; readonly what: string }

/** What makes a URI unjudgeable (completes "the resource rules cannot judge a URI with …"). */
export const unjudgeable = {
  encodedSlash: 'an encoded "/" (%2F) in its path',
  encodedBackslash: 'an encoded "\\" (%5C) in its path',
  backslash: 'a "\\" before its query',
  emptySegment: 'an empty path segment ("//")',
  aboveRoot: 'a ".." segment above the root of its path',
  control: "a control character",
  encodedControl: "an encoded control character in its path",
  malformed: "a malformed percent-encoding",
  edgeSpace: "a space at its start or end"
} as const

class Unjudgeable {
  constructor(readonly what: string) {}
}

const hex = (byte: number): string => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`

const isHexDigit = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)

const isUnreserved = (byte: number): boolean =>
  (byte >= 0x41 && byte <= 0x5a) ||
  (byte >= 0x61 && byte <= 0x7a) ||
  (byte >= 0x30 && byte <= 0x39) ||
  byte === 0x2d ||
  byte === 0x2e ||
  byte === 0x5f ||
  byte === 0x7e

/** Characters that are never valid raw in a URI: their encoded form is their only spelling. */
const neverRaw = new Set([0x20, 0x22, 0x3c, 0x3e, 0x5e, 0x60, 0x7b, 0x7c, 0x7d])

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The length of the UTF-8 sequence a lead byte starts (0: not a lead byte). */
const sequenceLength = (byte: number): number =>
  byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0

/**
 * Percent-encodings of one component in their judged form. `strict` (a URI's path): an encoded `/`,
 * `\` or control character makes the URI unjudgeable. Not strict (queries, fragments, hosts, the
 * literal text of patterns): they stay encoded. A malformed encoding is unjudgeable unless `lenient`
 * (a pattern's text keeps it as written).
 */
export const percent = (text: string, strict: boolean, lenient = false): string => {
  if (!text.includes("%")) return text
  let out = ""
  let i = 0
  while (i < text.length) {
    if (text[i] !== "%") {
      out += text[i]
      i += 1
      continue
    }
    const bytes: Array<number> = []
    let malformed = false
    while (i < text.length && text[i] === "%") {
      if (!isHexDigit(text.charCodeAt(i + 1)) || !isHexDigit(text.charCodeAt(i + 2))) {
        if (!lenient) throw new Unjudgeable(unjudgeable.malformed)
        malformed = true
        break
      }
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16))
      i += 3
    }
    let j = 0
    while (j < bytes.length) {
      const byte = bytes[j]!
      if (byte < 0x80) {
        if (strict && byte === 0x2f) throw new Unjudgeable(unjudgeable.encodedSlash)
        if (strict && byte === 0x5c) throw new Unjudgeable(unjudgeable.encodedBackslash)
        if (strict && (byte < 0x20 || byte === 0x7f)) throw new Unjudgeable(unjudgeable.encodedControl)
        out += isUnreserved(byte) || neverRaw.has(byte) ? String.fromCharCode(byte) : hex(byte)
        j += 1
        continue
      }
      const length = sequenceLength(byte)
      if (length > 0 && j + length <= bytes.length) {
        try {
          out += utf8.decode(Uint8Array.from(bytes.slice(j, j + length)))
          j += length
          continue
        } catch {
          // not a valid UTF-8 sequence: the byte keeps its encoding
        }
      }
      out += hex(byte)
      j += 1
    }
    if (malformed) {
      // a pattern's lone `%` is itself
      out += "%"
      i += 1
    }
  }
  return out
}

const dotSegment = /(?:^|\/)\.\.?(?:\/|$)/

/** Removes `.` and `..` segments (RFC 3986 5.2.4); a `..` with nothing left to remove is unjudgeable. */
const removeDotSegments = (path: string): string => {
  // an empty segment other than a trailing one (`//` anywhere): servers read `a//b` as `a/b` or as is
  if (path.includes("//")) throw new Unjudgeable(unjudgeable.emptySegment)
  // most paths have no dot segment: one scan, no split
  if (!dotSegment.test(path)) return path
  const absolute = path.startsWith("/")
  const segments = (absolute ? path.slice(1) : path).split("/")
  const out: Array<string> = []
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const last = i === segments.length - 1
    if (segment === ".") {
      if (last) out.push("")
      continue
    }
    if (segment === "..") {
      if (out.length === 0) throw new Unjudgeable(unjudgeable.aboveRoot)
      out.pop()
      if (last) out.push("")
      continue
    }
    out.push(segment)
  }
  return (absolute ? "/" : "") + out.join("/")
}

const defaultPorts: Readonly<Record<string, string>> = { http: "80", https: "443", ws: "80", wss: "443" }

const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*$/

/** The authority with its host in lower case, `localhost` of `file:` dropped, a default or empty port dropped. */
export const authorityOf = (authority: string, scheme: string, strict: boolean): string => {
  const at = authority.lastIndexOf("@")
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1)
  const hostPort = authority.slice(at + 1)
  const closing = hostPort.startsWith("[") ? hostPort.indexOf("]") : -1
  const colon = hostPort.indexOf(":", closing === -1 ? 0 : closing)
  let host = colon === -1 ? hostPort : hostPort.slice(0, colon)
  let port = colon === -1 ? undefined : hostPort.slice(colon + 1)
  host = percent(host, false, !strict).toLowerCase()
  if (scheme === "file" && host === "localhost") host = ""
  if (port === "" || (port !== undefined && defaultPorts[scheme] === port)) port = undefined
  return `${percent(userinfo, false, !strict)}${host}${port === undefined ? "" : `:${port}`}`
}

const uriPattern = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const control = /[\u0000-\u001f\u007f]/

const hasControl = (text: string): boolean => control.test(text)

/** The judged form of a URI, or why the rules cannot judge it. */
export const normalize = (uri: string): Normalized => {
  try {
    if (hasControl(uri)) throw new Unjudgeable(unjudgeable.control)
    if (uri.startsWith(" ") || uri.endsWith(" ")) throw new Unjudgeable(unjudgeable.edgeSpace)
    const parts = uriPattern.exec(uri)!
    const [, rawScheme, authority, path = "", query, fragment] = parts
    const beforeQuery =
      uri.length - (query === undefined ? 0 : query.length + 1) - (fragment === undefined ? 0 : fragment.length + 1)
    if (uri.slice(0, beforeQuery).includes("\\")) throw new Unjudgeable(unjudgeable.backslash)
    const scheme =
      rawScheme === undefined ? undefined : schemePattern.test(rawScheme) ? rawScheme.toLowerCase() : rawScheme
    let out = scheme === undefined ? "" : `${scheme}:`
    if (authority !== undefined) out += `//${authorityOf(authority, scheme ?? "", true)}`
    out += removeDotSegments(percent(path, true))
    if (query !== undefined) out += `?${percent(query, false)}`
    if (fragment !== undefined) out += `#${percent(fragment, false)}`
    return { _tag: "judged", uri: out }
  } catch (e) {
    if (e instanceof Unjudgeable) return { _tag: "unjudgeable", what: e.what }
    throw e
  }
}

/**
 * The spellings a deny rule is also checked against: a server may ignore a trailing `/`, a query or
 * a fragment, so a denied resource is not reached by adding them.
 */
export const denyForms = (judged: string): ReadonlyArray<string> => {
  const forms = [judged]
  const cut = judged.search(/[?#]/)
  const base = cut === -1 ? judged : judged.slice(0, cut)
  if (base !== judged) forms.push(base)
  for (const form of [...forms]) {
    const trimmed = trimSlash(form)
    if (trimmed !== form) forms.push(trimmed)
  }
  return forms
}

/** The URI without the trailing `/` of its path (the root path `/` of an authority stays). */
const trimSlash = (uri: string): string => {
  if (!uri.endsWith("/")) return uri
  const authority = /^[^:/?#]+:\/\/[^/?#]*\/$/.exec(uri)
  return authority !== null ? uri : uri.slice(0, -1)
}

/**
 * A pattern in the form its URIs are judged in: the scheme and host in lower case (a `file:` host
 * `localhost` dropped). Its literal text is normalized piece by piece by the caller.
 */
export const patternPrefix = (pattern: string): string => {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(pattern)
  if (scheme === null) return pattern
  const name = scheme[1]!.toLowerCase()
  let rest = pattern.slice(scheme[0].length)
  let out = `${name}:`
  if (rest.startsWith("//")) {
    const end = rest.slice(2).search(/[/?#]/)
    const authority = end === -1 ? rest.slice(2) : rest.slice(2, 2 + end)
    rest = end === -1 ? "" : rest.slice(2 + end)
    out += `//${authorityOf(authority, name, false)}`
  }
  return out + rest
}
