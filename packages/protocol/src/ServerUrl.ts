/**
 * The URL of an HTTP MCP server as messages show it. A server URL may carry a secret in its query
 * (`?token=…`, `?api_key=…`): every message that names the URL (server status, errors, the model's
 * `failedServers`, logs) shows it with each query value replaced by {@link redactedValue}, and a text
 * that quotes the configured URL or its query (a server's error page, an SDK message) has those parts
 * replaced the same way. Credentials in the URL itself (`user:password@`) are refused when the config
 * is loaded (`Config`); they are dropped here too, for URLs made in code.
 */

/** What a query value is replaced by. */
export const redactedValue = "REDACTED"

/** Each `name=value` of a raw query (without `?`), the value replaced; a name without `=` stays. */
const redactQuery = (query: string): string =>
  query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=")
      return eq === -1 ? pair : `${pair.slice(0, eq)}=${redactedValue}`
    })
    .join("&")

/**
 * The URL with each query value replaced by {@link redactedValue}, without its fragment or
 * credentials (`https://host/mcp?token=REDACTED`); a text that is not a URL is shown as `the server URL`.
 */
export const redact = (url: string | URL): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "the server URL"
  }
  const query = parsed.search.length > 1 ? `?${redactQuery(parsed.search.slice(1))}` : ""
  return `${parsed.origin}${parsed.pathname}${query}`
}

/** Whether a URL carries credentials (`user@` or `user:password@`). */
export const hasCredentials = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return parsed.username !== "" || parsed.password !== ""
  } catch {
    return false
  }
}

/** The secret spellings of `url` a text may quote, longest first, each with what replaces it. */
const secretParts = (url: string): ReadonlyArray<readonly [string, string]> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return []
  }
  const credentials = parsed.username !== "" || parsed.password !== ""
  if (parsed.search.length <= 1 && !credentials) return []
  const parts: Array<readonly [string, string]> = []
  const shown = redact(parsed)
  parts.push([url, shown], [parsed.href, shown])
  const rawQuery = parsed.search.slice(1)
  if (rawQuery !== "") {
    parts.push([rawQuery, redactQuery(rawQuery)])
    for (const pair of rawQuery.split("&")) {
      const eq = pair.indexOf("=")
      if (eq === -1) continue
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (value === "") continue
      parts.push([pair, `${name}=${redactedValue}`])
      // the value as a decoded text and as another URL's parameter would spell it
      let decoded = value
      try {
        decoded = decodeURIComponent(value.replace(/\+/g, " "))
      } catch {}
      parts.push([`${name}=${encodeURIComponent(decoded)}`, `${name}=${redactedValue}`])
      if (decoded.length >= 8) parts.push([decoded, redactedValue])
    }
    parts.push([encodeURIComponent(parsed.href), encodeURIComponent(shown)])
  }
  if (credentials) {
    const userinfo = `${parsed.username}${parsed.password !== "" ? `:${parsed.password}` : ""}@`
    parts.push([userinfo, ""])
    if (parsed.password !== "") parts.push([parsed.password, redactedValue])
  }
  return parts.filter(([secret]) => secret !== "").sort((a, b) => b[0].length - a[0].length)
}

/**
 * `text` with every quote of the secret parts of `url` replaced: the URL itself by {@link redact}, its
 * query and each `name=value` of it with the value redacted (raw, decoded or re-encoded), a long value
 * on its own, and its credentials. A URL without query or credentials leaves `text` as it is.
 */
export const redactIn = (text: string, url: string): string => {
  let out = text
  for (const [secret, shown] of secretParts(url)) {
    if (out.includes(secret)) out = out.split(secret).join(shown)
  }
  return out
}
