/**
 * MCP Apps widgets (the `io.modelcontextprotocol/ui` extension, docs/widgets.md): the UI metadata of a
 * widget resource, how the list entry's and the content item's metadata combine, and which tools a
 * widget may call. Pure values and functions; the app-server's `mcp/widget/*` methods use them.
 */
import { Schema } from "effect"
import { JsonObject } from "./Mcp.js"
import { opt } from "./internal/schema.js"
import { isRecord } from "./Records.js"

/** The extension's identifier in client capabilities (`capabilities.extensions`). */
export const extensionId = "io.modelcontextprotocol/ui"

/** The MIME type of an MCP App's HTML resource, advertised by the client. */
export const mimeType = "text/html;profile=mcp-app"

/** The scheme of UI resources. */
export const uiScheme = "ui://"

/** Whether `uri` names a UI resource (`ui://…`). */
export const isUiUri = (uri: string): boolean => uri.startsWith(uiScheme)

/** `_meta.ui.csp`: the origins a widget declares for each kind of request; nothing else is allowed. */
export const WidgetCsp = Schema.Struct({
  connectDomains: opt(Schema.Array(Schema.String)),
  resourceDomains: opt(Schema.Array(Schema.String)),
  frameDomains: opt(Schema.Array(Schema.String)),
  baseUriDomains: opt(Schema.Array(Schema.String))
}).annotations({ identifier: "WidgetCsp" })
/** `_meta.ui.csp`. */
export type WidgetCsp = typeof WidgetCsp.Type

/** `_meta.ui` of a widget resource: `csp`, `permissions`, `domain`, `prefersBorder`. */
export const WidgetUiMeta = Schema.Struct({
  csp: opt(WidgetCsp),
  permissions: opt(JsonObject),
  domain: opt(Schema.String),
  prefersBorder: opt(Schema.Boolean)
}).annotations({ identifier: "WidgetUiMeta" })
/** `_meta.ui` of a widget resource. */
export type WidgetUiMeta = typeof WidgetUiMeta.Type

const stringArray = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) && u.every((s) => typeof s === "string") ? (u as ReadonlyArray<string>) : undefined

const cspKeys = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const

/** The well-formed fields of a `_meta.ui` value (anything else, or a field of the wrong type, is dropped). */
export const uiMetaOf = (meta: unknown): WidgetUiMeta => {
  const ui = isRecord(meta) ? meta.ui : undefined
  if (!isRecord(ui)) return {}
  const out: { -readonly [K in keyof WidgetUiMeta]: WidgetUiMeta[K] } = {}
  if (isRecord(ui.csp)) {
    const csp: { -readonly [K in keyof WidgetCsp]: WidgetCsp[K] } = {}
    for (const key of cspKeys) {
      const domains = stringArray(ui.csp[key])
      if (domains !== undefined) csp[key] = domains
    }
    out.csp = csp
  }
  if (isRecord(ui.permissions)) out.permissions = ui.permissions
  if (typeof ui.domain === "string") out.domain = ui.domain
  if (typeof ui.prefersBorder === "boolean") out.prefersBorder = ui.prefersBorder
  return out
}

/**
 * The widget's UI metadata from the list entry's `_meta` and the content item's `_meta`: each field of
 * the content item wins over the same field of the list entry (`csp` as a whole, not merged per kind).
 */
export const mergeUiMeta = (listEntryMeta: unknown, contentMeta: unknown): WidgetUiMeta => ({
  ...uiMetaOf(listEntryMeta),
  ...uiMetaOf(contentMeta)
})

/** A tool's `_meta.ui.visibility`; absent or not an array means the default `["model", "app"]`. */
export const visibilityOf = (toolMeta: unknown): ReadonlyArray<string> => {
  const ui = isRecord(toolMeta) ? toolMeta.ui : undefined
  const visibility = isRecord(ui) ? ui.visibility : undefined
  return Array.isArray(visibility) ? visibility.filter((v): v is string => typeof v === "string") : ["model", "app"]
}

/** Whether a widget may call the tool: its visibility includes `app`. */
export const isAppVisible = (toolMeta: unknown): boolean => visibilityOf(toolMeta).includes("app")

/**
 * The UI resource a tool names: `_meta.ui.resourceUri`, else the older `_meta["ui/resourceUri"]` or
 * `_meta["openai/outputTemplate"]` (the first that is a string).
 */
export const resourceUriOf = (toolMeta: unknown): string | undefined => {
  if (!isRecord(toolMeta)) return undefined
  const ui = toolMeta.ui
  return [
    isRecord(ui) ? ui.resourceUri : undefined,
    toolMeta["ui/resourceUri"],
    toolMeta["openai/outputTemplate"]
  ].find((u): u is string => typeof u === "string")
}
