/**
 * The Content Security Policy of a widget's document, built only from the origins its `_meta.ui.csp`
 * declares (docs/widgets.md). With nothing declared the widget may run its own inline script and style
 * and load `data:` images, and reach nothing. An entry that is not a plain origin (`https://host`,
 * `https://*.host`, with an optional port) is dropped, so that a declaration cannot add a keyword or a
 * directive of its own. No Node module: the sandbox proxy page uses it too.
 */
import type { Widget } from "@mcp-resources/protocol"

const origin =
  /^(?:https?|wss?):\/\/(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(?:\d{1,5}|\*))?$/i

/** Whether `entry` is a plain origin a CSP source list may hold. */
export const isOrigin = (entry: string): boolean => origin.test(entry)

/** The declared entries that are plain origins, in order, without duplicates. */
export const sources = (domains: ReadonlyArray<string> | undefined): ReadonlyArray<string> => [
  ...new Set((domains ?? []).filter(isOrigin))
]

const list = (values: ReadonlyArray<string>, fallback: string): string =>
  values.length === 0 ? fallback : values.join(" ")

const withSources = (base: string, values: ReadonlyArray<string>): string =>
  values.length === 0 ? base : `${base} ${values.join(" ")}`

/** The policy of the declared `csp` (absent: the default policy). */
export const build = (csp: Widget.WidgetCsp | undefined): string => {
  const resource = sources(csp?.resourceDomains)
  const connect = sources(csp?.connectDomains)
  const frame = sources(csp?.frameDomains)
  const base = sources(csp?.baseUriDomains)
  return [
    "default-src 'none'",
    withSources("script-src 'self' 'unsafe-inline'", resource),
    withSources("style-src 'self' 'unsafe-inline'", resource),
    withSources("img-src 'self' data:", resource),
    withSources("font-src 'self'", resource),
    withSources("media-src 'self' data:", resource),
    `connect-src ${list(connect, "'none'")}`,
    `frame-src ${list(frame, "'none'")}`,
    "object-src 'none'",
    `base-uri ${list(base, "'self'")}`
  ].join("; ")
}

/**
 * The policy of a widget's sandbox proxy document (its parent, on the same per-widget origin): the
 * widget's own policy, so that nothing the widget reaches through `parent` (its `fetch`, an image or a
 * script in its document) goes further than the widget itself may; its `frame-src` also bounds where
 * the widget's own frame may navigate. `frame-ancestors` lets only the host page frame it (sent as a
 * header: a `<meta>` policy cannot hold it).
 */
export const proxyPolicy = (csp: Widget.WidgetCsp | undefined, pageOrigin: string): string =>
  `${build(csp)}; frame-ancestors ${pageOrigin}`

const escapeAttribute = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** The HTML with the policy as the first element of its `<head>` (or before everything when it has none). */
export const inject = (html: string, policy: string): string => {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">`
  const head = /<head(?:\s[^>]*)?>/i.exec(html)
  if (head !== null) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length)
  return meta + html
}
