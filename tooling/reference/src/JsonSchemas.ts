/**
 * The JSON Schemas of the app-server protocol and of the config file, generated from the Effect Schemas
 * of `@mcp-resources/protocol` (`JSONSchema.fromAST`, the encoded side, draft-07). Clients in other
 * languages generate their types from these documents.
 */
import { AppServer, Config, ToolHook } from "@mcp-resources/protocol"
import { JSONSchema, type Schema } from "effect"

/** A JSON Schema object, loosely typed: these documents are data to write out and to walk. */
export type JsonSchema = { readonly [key: string]: unknown }

/** The `$schema` of every generated document. */
export const draft = "http://json-schema.org/draft-07/schema#"

/** Where the app-server package keeps the generated documents, relative to the repository root. */
export const files = {
  appServer: "apps/app-server/schemas/app-server.schema.json",
  config: "apps/app-server/schemas/config.schema.json",
  hooks: "apps/app-server/schemas/hooks.schema.json"
} as const

/**
 * Definition names derived from identifiers that are not usable as type names in other languages.
 * A new odd identifier fails generation, so that it is named here deliberately.
 */
const renamed: Readonly<Record<string, string>> = { "integer >= 0": "NonNegativeInt" }

const typeName = (identifier: string): string => {
  const name = renamed[identifier] ?? identifier
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Error(`the schema identifier ${JSON.stringify(identifier)} needs a type name in JsonSchemas.renamed`)
  }
  return name
}

/** `thread/start` → `ThreadStart`, `config/mcpServer/reload` → `ConfigMcpServerReload`, `$/cancelRequest` → `CancelRequest`. */
export const methodTypeName = (method: string): string =>
  method
    .split("/")
    .filter((part) => /^[A-Za-z]/.test(part))
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("")

const refTo = (name: string) => ({ $ref: `#/$defs/${name}` })

/**
 * effect marks some schemas with a shared `$id` (`/schemas/unknown`, `/schemas/{}`); repeated, they make
 * the document ambiguous to validators. They become what the wire carries: any JSON value, and an
 * object (`Schema.Struct({})`, the params and results without fields).
 */
const markers: Readonly<Record<string, JsonSchema>> = {
  "/schemas/unknown": {},
  "/schemas/%7B%7D": { type: "object" }
}

/** Renames `$ref`s and definition keys through {@link typeName} and replaces effect's markers, recursively. */
const renameRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(renameRefs)
  if (typeof value !== "object" || value === null) return value
  if ("$id" in value && typeof value.$id === "string" && value.$id.startsWith("/schemas/")) {
    const replacement = markers[value.$id]
    if (replacement === undefined) throw new Error(`no JSON Schema for effect's ${value.$id}: add it to markers`)
    return replacement
  }
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof child === "string" && child.startsWith("#/$defs/")
        ? `#/$defs/${typeName(child.slice("#/$defs/".length))}`
        : renameRefs(child)
  }
  return out
}

/** Collects the named entry definitions and the shared ones (schemas with an identifier) they refer to. */
const makeCollector = () => {
  const shared: Record<string, JSONSchema.JsonSchema7> = {}
  const entries: Record<string, unknown> = {}
  return {
    add: (name: string, schema: Schema.Schema.All): { $ref: string } => {
      if (!Object.hasOwn(entries, name)) {
        entries[name] = JSONSchema.fromAST(schema.ast, {
          definitions: shared,
          // "keep": with "skip", effect 3.22 inlines every nested identified schema too, not only the top.
          // Unknown fields are ignored in params and may be added to results: clients must tolerate them.
          additionalPropertiesStrategy: "allow"
        })
      }
      return refTo(name)
    },
    entryNames: (): ReadonlySet<string> => new Set(Object.keys(entries)),
    defs: (): Record<string, unknown> => {
      const all: Record<string, unknown> = {}
      for (const [name, def] of Object.entries(shared)) all[typeName(name)] = def
      for (const [name, def] of Object.entries(entries)) {
        if (Object.hasOwn(all, name)) throw new Error(`two definitions are named ${name}`)
        all[name] = def
      }
      return renameRefs(
        Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      ) as Record<string, unknown>
    }
  }
}

/**
 * In draft-07 the keywords beside a `$ref` are ignored, and effect writes refinements of a named schema
 * that way (`{"$ref":"#/$defs/Int","exclusiveMinimum":0}`): such a node gets the target inlined, its own
 * keywords on top. Definitions no longer referenced (and not named entries) are then dropped.
 */
const inlineRefSiblings = (document: JsonSchema, entries: ReadonlySet<string>): JsonSchema => {
  const defs = (document.$defs ?? {}) as Record<string, JsonSchema>
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value !== "object" || value === null) return value
    const node = value as JsonSchema
    if (typeof node.$ref === "string" && Object.keys(node).length > 1) {
      const { $ref, ...local } = node
      const target = defs[$ref.replace("#/$defs/", "")]
      if (target === undefined) throw new Error(`no definition for ${$ref}`)
      return walk({ ...target, ...local })
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]))
  }
  const walked = walk(document) as JsonSchema
  const text = JSON.stringify({ ...walked, $defs: undefined })
  const used = new Set<string>()
  const visit = (name: string) => {
    if (used.has(name)) return
    used.add(name)
    for (const match of JSON.stringify(walkedDefs[name]).matchAll(/"#\/\$defs\/([^"]+)"/g)) visit(match[1]!)
  }
  const walkedDefs = (walked.$defs ?? {}) as Record<string, JsonSchema>
  for (const match of text.matchAll(/"#\/\$defs\/([^"]+)"/g)) visit(match[1]!)
  for (const name of entries) visit(name)
  return { ...walked, $defs: Object.fromEntries(Object.entries(walkedDefs).filter(([name]) => used.has(name))) }
}

/** The method a method name is an alias of (`mcpServer/resource/read` → `mcp/resource/read`), or itself. */
export const canonical = (method: string): string =>
  method === "mcpServer/resource/read" ? "mcp/resource/read" : method

/**
 * The app-server document: every method's params and result, every notification the server sends and
 * every client notification, as `$defs` named `{Method}Params`, `{Method}Result` and
 * `{Method}Notification`; `x-methods`, `x-notifications`, `x-clientNotifications` and
 * `x-serverRequests` (server-to-client requests) map each JSON-RPC method name to its definitions.
 */
export const appServerDocument = (): JsonSchema => {
  const collector = makeCollector()
  const methods: Record<string, unknown> = {}
  for (const method of Object.keys(AppServer.methods) as Array<AppServer.Method>) {
    const name = methodTypeName(canonical(method))
    methods[method] = {
      params: collector.add(`${name}Params`, AppServer.methods[method]),
      result: collector.add(`${name}Result`, AppServer.results[method])
    }
  }
  const notifications: Record<string, unknown> = {}
  for (const [method, schema] of Object.entries(AppServer.notifications)) {
    notifications[method] = { params: collector.add(`${methodTypeName(method)}Notification`, schema) }
  }
  const serverRequests: Record<string, unknown> = {}
  for (const method of Object.keys(AppServer.serverRequests) as Array<AppServer.ServerRequestMethod>) {
    const name = methodTypeName(method)
    serverRequests[method] = {
      params: collector.add(`${name}Params`, AppServer.serverRequests[method]),
      result: collector.add(`${name}Result`, AppServer.serverRequestResults[method])
    }
  }
  const clientNotifications: Record<string, unknown> = {}
  for (const [method, schema] of Object.entries(AppServer.clientNotifications)) {
    clientNotifications[method] = { params: collector.add(`${methodTypeName(method)}Params`, schema) }
  }
  return inlineRefSiblings(
    {
      $schema: draft,
      title: "mcp-resources app-server protocol",
      description:
        "JSON-RPC 2.0 methods, results and notifications of the mcp-resources app-server. Generated from the Effect Schemas of @mcp-resources/protocol; do not edit.",
      "x-protocolVersion": AppServer.protocolVersion,
      "x-methods": methods,
      "x-notifications": notifications,
      "x-clientNotifications": clientNotifications,
      "x-serverRequests": serverRequests,
      $defs: collector.defs()
    },
    collector.entryNames()
  )
}

/** The config file document (TOML tables or JSON objects of the same shape; unknown keys are refused). */
export const configDocument = (): JsonSchema => {
  const shared: Record<string, JSONSchema.JsonSchema7> = {}
  const root = JSONSchema.fromAST(Config.RawConfig.ast, {
    definitions: shared,
    additionalPropertiesStrategy: "strict"
  })
  const defs: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(shared)) defs[typeName(name)] = def
  const document = renameRefs({
    $schema: draft,
    title: "mcp-resources config file",
    description:
      "The mcp-resources config file as JSON (a .toml file has the same tables). Generated from the Effect Schemas of @mcp-resources/protocol; do not edit. Rules across keys (exactly one of command or url, server name pattern) are checked by the server and described in docs/config.md.",
    ...root,
    $defs: defs
  }) as JsonSchema
  return inlineRefSiblings(document, new Set())
}

/**
 * The host policy document (docs/policy.md): what a command hook reads on standard input, the
 * decisions it prints, and the audit record of a call.
 */
export const hooksDocument = (): JsonSchema => {
  const shared: Record<string, JSONSchema.JsonSchema7> = {}
  const entries: Record<string, unknown> = {}
  for (const schema of [
    ToolHook.HookInput,
    ToolHook.BeforeToolDecision,
    ToolHook.AfterToolDecision,
    ToolHook.ToolAudit
  ]) {
    const ref = JSONSchema.fromAST(schema.ast, { definitions: shared, additionalPropertiesStrategy: "allow" })
    const name = String((ref as { $ref?: string }).$ref ?? "").replace("#/$defs/", "")
    entries[name] = ref
  }
  const defs: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(shared).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    defs[typeName(name)] = def
  }
  const document = renameRefs({
    $schema: draft,
    title: "mcp-resources tool hooks",
    description:
      "The JSON a command hook reads on standard input (HookInput) and prints on standard output (BeforeToolDecision, AfterToolDecision), and the audit record of a model tool call (ToolAudit). Generated from the Effect Schemas of @mcp-resources/protocol; do not edit.",
    "x-entries": entries,
    $defs: defs
  }) as JsonSchema
  return inlineRefSiblings(document, new Set(Object.keys(entries)))
}

/** The text of a generated document as committed: two-space JSON and a final newline. */
export const toText = (document: JsonSchema): string => `${JSON.stringify(document, null, 2)}\n`
