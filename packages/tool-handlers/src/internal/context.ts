/**
 * What every module of a tool call shares: the thread's tool context, the model's call and what it
 * gets back, and the shape of a tool profile (its values are in Profile.ts). Nothing here runs.
 */
import type { AppServer, Config, Errors, ToolCallItem, ToolPayload, Truncation } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import type { Effect, Option } from "effect"
import type * as Content from "../Content.js"
import type { EmitError, LifecycleSink } from "../LifecycleSink.js"
import type * as ResourceChanges from "../ResourceChanges.js"

/** What a thread's tools run against. */
export interface ToolContext {
  /** The thread's binding: the latest set at its most recent `turn/start`. */
  readonly set: ResourceClient.ConnectionSet
  /** The latest loaded config (apps server name, app policy). */
  readonly config: Config.Config
  /** The access gate: when false, the apps server is refused by the three resource tools. */
  readonly orchestratorMcpEnabled: boolean
  /** The configured policy; the effective limit (×1.2) is applied inside. */
  readonly truncation: Truncation.TruncationPolicy
  /** The item `server` of a list call without a server (default `codex`). */
  readonly aggregateServerLabel?: string
  /**
   * The tool profile (default `codex`): a name of the config (`codex`, `extended`) or a profile value
   * of the host's own (Profile.ts). It is resolved once per listing and per call.
   */
  readonly profile?: Config.ToolProfile | Profile
  /** Deny patterns the thread adds to the config's resource rules (docs/policy.md); they never remove one. */
  readonly resourceDeny?: ReadonlyArray<string>
  /**
   * Told of every successful `read_mcp_resource` of a profile that watches reads (the extended one)
   * on a server that declares `resources.subscribe`: the URI read, a template's expanded one, and the
   * call id, e.g. a {@link ResourceChanges.Tracker} that subscribes the thread to it. The codex profile
   * never calls it.
   */
  readonly resourceChanges?: ResourceChanges.ReadWatch
  /**
   * The search of every server's resources `search_mcp_resources` runs on (a `ResourceSearch` service,
   * whose index of the set is kept between calls). Without it each call builds an index of its own.
   */
  readonly search?: Search
  /**
   * The bodies the thread read (extended profile): where a read keeps each text body it returned and
   * finds the earlier read `since` names, to answer with what changed. Without it a read keeps nothing
   * and `since` answers with the whole body and a note.
   */
  readonly bodies?: Bodies
}

/** An earlier read of the thread: its call, the URI read and each content item's body. */
export interface EarlierRead {
  readonly callId: string
  readonly server: string
  readonly read: ToolCallItem.ResourceRead
}

/** The bodies of a thread's reads, as a host keeps them (the app-server: its body store and the thread's items). */
export interface Bodies {
  /**
   * The thread's earlier read: of call `callId` (whatever it read), or else the latest completed read
   * of `uri` on `server`; `None` when there is none (a rolled-back read counts as none).
   */
  readonly earlier: (query: {
    readonly server: string
    readonly uri: string
    readonly callId?: string
  }) => Effect.Effect<Option.Option<EarlierRead>>
  /** Keeps a text body the thread read; whether its bytes are kept (false over the bounds, or when nothing can keep it). */
  readonly keep: (
    body: Uint8Array,
    meta: { readonly uri: string; readonly mimeType?: string | undefined }
  ) => Effect.Effect<boolean>
  /** The bytes of a kept body (`None`: never kept, evicted or released). */
  readonly get: (digest: string) => Effect.Effect<Option.Option<Uint8Array>>
}

/** What a search looks for (ResourceSearch.ts). */
export interface SearchRequest {
  /** Words of a name, title, description or URI; prefixes and small typos match too. */
  readonly query: string
  /** Only this server's entries. */
  readonly server?: string | undefined
  /** Only entries with exactly this `mimeType`. */
  readonly mimeType?: string | undefined
  /** At most this many matches (default 10, at most 50). */
  readonly limit?: number | undefined
}

/** One ranked match: a resource (`uri`) or a resource template (`uriTemplate`). */
export interface SearchMatch {
  readonly server: string
  readonly uri?: string
  readonly uriTemplate?: string
  readonly name: string
  readonly title?: string
  readonly mimeType?: string
  /** A short excerpt of the description (at most 160 characters). */
  readonly description?: string
  /** The relevance (BM25+ with field boosts), rounded to 3 decimals; higher is better. */
  readonly score: number
}

/** A server whose part of the index could not be built (its entries, if any, are from an earlier build). */
export interface SearchFailure {
  readonly server: string
  readonly error: string
}

/** The answer of a search. */
export interface SearchResult {
  /** Best first. */
  readonly matches: ReadonlyArray<SearchMatch>
  /** Servers whose part of the index is still being built (their matches may be missing or stale). */
  readonly indexing: ReadonlyArray<string>
  /** Servers whose last build failed. */
  readonly failures: ReadonlyArray<SearchFailure>
  /** Servers whose lists were cut at `[search] max_resources` (or at the pagination guard). */
  readonly truncated: ReadonlyArray<string>
}

/** A search over the resources of a tool context's set (ResourceSearch.Service is one). */
export interface Search {
  /**
   * Searches the index of the context's set (building what is missing or stale first, waiting a
   * bounded time). Fails only on its arguments.
   */
  readonly search: (ctx: ToolContext, request: SearchRequest) => Effect.Effect<SearchResult, Errors.ParameterError>
}

/** A model's function call: its id, the function name and the raw argument text. */
export interface ToolCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string
}

/** What the model gets back: the output text and whether the call succeeded. */
export interface ToolOutput {
  readonly output: string
  readonly success: boolean
  /** Extended profile only: the output text, then each image sent as an image. */
  readonly contentItems?: ReadonlyArray<AppServer.ContentItem>
}

/** Runs one call of a profile's tool (arguments, lifecycle items, rendering). Never fails. */
export type RunTool = (ctx: ToolContext, call: ToolCall) => Effect.Effect<ToolOutput, EmitError, LifecycleSink>

/** A tool a profile offers: the spec the model sees and what runs a call of it. */
export interface ProfileTool {
  readonly spec: ToolPayload.ToolSpec
  readonly run: RunTool
}

/** A tool profile: its resource tools, its completion tool, and its content pipeline entry (Profile.ts). */
export interface Profile {
  /** The profile's name (in spans, logs and tests). */
  readonly name: string
  /** The resource tools, in the order they are offered (first in every listing of a bound thread). */
  readonly resourceTools: ReadonlyArray<ProfileTool>
  /** Offered right after them when a ready, accessible server of the binding declares `completions`. */
  readonly completion?: ProfileTool
  /** How its outputs (reads, MCP tool results, lists, failures) become the model's text and items (Content.ts). */
  readonly content: Content.Pipeline
  /**
   * Whether a thread on this profile follows the resources its reads returned (a host subscribes it
   * and hands the changes over at the next turn); a profile that does not ignores `resourceChanges`.
   */
  readonly followsReads: boolean
}
