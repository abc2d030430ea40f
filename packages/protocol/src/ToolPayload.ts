/**
 * Model-facing payloads of the resource tools (resource-tools.md section 8) and the Responses API
 * ToolSpec (section 3). Key order is deliberate: `server` first, then the item's fields in the order
 * of section 1.5. Payloads are encoded through these schemas; the list payloads, which can hold
 * thousands of entries, are built in the same order by their builders ({@link resourceEntry}) and
 * their JSON text is the same.
 */
import { Schema } from "effect"
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
  ReadResourceResult as ReadResult,
  Resource,
  ResourceTemplate,
  JsonObject
} from "./Mcp.js"
import * as FastPaths from "./internal/fastPaths.js"
import { opt } from "./internal/schema.js"
import { passThrough } from "./Records.js"

/** A resource entry: `server` first, then the resource's fields. */
export const ResourceEntry = Schema.Struct({ server: Schema.String, ...Resource.fields })
/** A resource entry: `server` first, then the resource's fields. */
export type ResourceEntry = typeof ResourceEntry.Type

/**
 * A resource entry built in {@link ResourceEntry}'s key order (the JSON text of encoding through
 * it, without the schema machinery: list payloads can hold thousands of entries). The fast path
 * lives in `internal/fastPaths.ts`.
 */
export const resourceEntry = (server: string, resource: Resource): ResourceEntry =>
  FastPaths.resourceEntry(server, resource)

/** A template entry: `server` first, then the template's fields. */
export const ResourceTemplateEntry = Schema.Struct({ server: Schema.String, ...ResourceTemplate.fields })
/** A template entry: `server` first, then the template's fields. */
export type ResourceTemplateEntry = typeof ResourceTemplateEntry.Type

/** A template entry built in {@link ResourceTemplateEntry}'s key order (as {@link resourceEntry}). */
export const resourceTemplateEntry = (server: string, template: ResourceTemplate): ResourceTemplateEntry =>
  FastPaths.resourceTemplateEntry(server, template)

/** `{server, error}`: a server that failed in an aggregate list. */
export const FailedServer = Schema.Struct({ server: Schema.String, error: Schema.String })
/** `{server, error}`: a server that failed in an aggregate list. */
export type FailedServer = typeof FailedServer.Type

/** `{"server":…,"resources":[…],"nextCursor"?:…}` */
export const SingleServerResources = Schema.Struct({
  server: Schema.String,
  resources: Schema.Array(ResourceEntry),
  nextCursor: opt(Schema.String)
})
/** `{"server":…,"resourceTemplates":[…],"nextCursor"?:…}` */
export const SingleServerResourceTemplates = Schema.Struct({
  server: Schema.String,
  resourceTemplates: Schema.Array(ResourceTemplateEntry),
  nextCursor: opt(Schema.String)
})
/** `{"resources":[…],"failedServers"?:[…]}` */
export const AggregateResources = Schema.Struct({
  resources: Schema.Array(ResourceEntry),
  failedServers: opt(Schema.Array(FailedServer))
})
/** `{"resourceTemplates":[…],"failedServers"?:[…]}` */
export const AggregateResourceTemplates = Schema.Struct({
  resourceTemplates: Schema.Array(ResourceTemplateEntry),
  failedServers: opt(Schema.Array(FailedServer))
})
/** `{"server":…,"uri":…}` followed by the read result's kept fields. */
export const ReadPayload = Schema.Struct({ server: Schema.String, uri: Schema.String, ...ReadResult.fields })
/** The read payload. */
export type ReadPayload = typeof ReadPayload.Type

const isBlank = (s: string | undefined) => s === undefined || s.trim() === ""

/** The single-server list payload; a blank `nextCursor` is omitted (resource-tools.md 1.4). */
export const singleServerResources = (
  server: string,
  page: ListResourcesResult
): typeof SingleServerResources.Type => ({
  server,
  resources: page.resources.map((r) => resourceEntry(server, r)),
  ...(isBlank(page.nextCursor) ? {} : { nextCursor: page.nextCursor! })
})

/** The single-server template list payload. */
export const singleServerResourceTemplates = (
  server: string,
  page: ListResourceTemplatesResult
): typeof SingleServerResourceTemplates.Type => ({
  server,
  resourceTemplates: page.resourceTemplates.map((t) => resourceTemplateEntry(server, t)),
  ...(isBlank(page.nextCursor) ? {} : { nextCursor: page.nextCursor! })
})

/** The read payload: the normalised requested `server` and `uri`, then the result's fields. */
export const readPayload = (server: string, uri: string, result: ReadResourceResult): ReadPayload => ({
  server,
  uri,
  ...result
})

/** Compact JSON text of a payload, encoded through its schema so that key order is the schema's. */
export const toJsonText = <A, I>(schema: Schema.Schema<A, I>, value: A): string =>
  JSON.stringify(Schema.encodeSync(schema)(value))

/** The Responses API function form: `{"type":"function","name","description","strict","parameters"}`. */
export const ToolSpec = Schema.Struct({
  type: Schema.Literal("function"),
  name: Schema.String,
  description: Schema.String,
  strict: Schema.Boolean,
  parameters: JsonObject
}).annotations({ identifier: "ToolSpec" })
/** The Responses API function form. */
export type ToolSpec = typeof ToolSpec.Type

/** The Chat Completions function form. */
export const ChatCompletionsTool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    description: Schema.String,
    parameters: JsonObject,
    strict: Schema.Boolean
  })
})
/** The Chat Completions function form. */
export type ChatCompletionsTool = typeof ChatCompletionsTool.Type

/** The JSON Schema of an Anthropic tool's input: an object schema (`type: "object"`), other keys passed through. */
export const AnthropicInputSchema = passThrough(
  Schema.Struct({ type: Schema.Literal("object") }, { key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "AnthropicInputSchema" })

/** The Anthropic Messages tool form. */
export const AnthropicTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  input_schema: AnthropicInputSchema
})
/** The Anthropic Messages tool form. */
export type AnthropicTool = typeof AnthropicTool.Type

/** Derives the Chat Completions form with the same name, description and parameters. */
export const toChatCompletions = (spec: ToolSpec): ChatCompletionsTool => ({
  type: "function",
  function: { name: spec.name, description: spec.description, parameters: spec.parameters, strict: spec.strict }
})

/** Derives the Anthropic Messages form with the same name, description and parameters. */
export const toAnthropic = (spec: ToolSpec): AnthropicTool => ({
  name: spec.name,
  description: spec.description,
  // the parameters as they are when they say `type: "object"` (every tool of this project), else with it added
  input_schema:
    spec.parameters.type === "object"
      ? (spec.parameters as AnthropicTool["input_schema"])
      : { ...spec.parameters, type: "object" }
})
