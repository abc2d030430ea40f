/**
 * The types of the resource client's contract (`ResourceClient.ts` re-exports every one): a connection
 * set's operations and what they take and give. Kept here, importing nothing of the package, so that the
 * internal modules implementing them do not import the module that builds them.
 */
import type { Config, Errors, Mcp, McpSkills } from "@mcp-resources/protocol"
import type { Effect, Option } from "effect"

/** A server's status in a connection set. */
export type Status = "starting" | "ready" | "failed" | "disabled"

/** One server of a set, as `mcpServer/list` shows it (no secrets). */
export interface ServerStatus {
  readonly name: string
  readonly status: Status
  readonly transport: "stdio" | "http" | "memory"
  /**
   * HTTP servers: `streamable` (streamable HTTP) or `sse` (the legacy HTTP+SSE transport, configured
   * with `type = "sse"` or fallen back to when the server refused streamable HTTP). Absent otherwise.
   */
  readonly httpTransport?: "streamable" | "sse"
  readonly error?: string
  /** The negotiated protocol revision of a ready server (e.g. `2025-11-25`, `2026-07-28`). */
  readonly protocolVersion?: string
  /** Set while a dropped remote server is reconnected: the attempt under way or waited for (from 1). */
  readonly reconnectAttempt?: number
}

/** How a server's changes are learnt: the 2026-07-28 stream, `resources/subscribe`, polling, or not at all. */
export type ChangeDetection = "stream" | "subscribe" | "poll" | "none"

/** The per-server outcome of an aggregate list: items of each server that succeeded, failures beside them. */
export interface AggregateResult<A> {
  /** Servers that succeeded, in bytewise order of name, each with its items in the server's order. */
  readonly servers: ReadonlyArray<{ readonly server: string; readonly items: ReadonlyArray<A> }>
  /** Servers that failed, in bytewise order of name; `error` is the message chain. */
  readonly failures: ReadonlyArray<{ readonly server: string; readonly error: string }>
}

/** Request `_meta` of a `resources/read`. */
export type RequestMeta = Readonly<Record<string, unknown>>

/** The operations of one connection set (resource-tools.md 1.4). Every failure is a message chain. */
export interface ConnectionSet {
  /** 1 for the first set, strictly increasing for the life of the process. */
  readonly generation: number
  /** The config this set was built from. */
  readonly config: Config.Config
  /** At least one enabled server, whatever its status. */
  readonly hasServers: () => boolean
  /** That enabled server is in the set; never waits. */
  readonly hasServer: (name: string) => boolean
  /** Every server of the set (disabled ones included, in-memory ones included), sorted by name. */
  readonly servers: () => ReadonlyArray<ServerStatus>
  /**
   * Waits until the server's startup settled (its turn under `[mcp] startup_concurrency`, then at most
   * its startup timeout) and returns its status; unknown names give `None`.
   */
  readonly awaitSettled: (name: string) => Effect.Effect<Option.Option<ServerStatus>>
  /** Waits until every enabled server's startup settled. */
  readonly awaitAllSettled: Effect.Effect<void>
  /** One page of `resources/list`; no params object without a cursor. */
  readonly listResources: (
    server: string,
    cursor?: string
  ) => Effect.Effect<Mcp.ListResourcesResult, Errors.ResourceFailure>
  /** One page of `resources/templates/list`. */
  readonly listResourceTemplates: (
    server: string,
    cursor?: string
  ) => Effect.Effect<Mcp.ListResourceTemplatesResult, Errors.ResourceFailure>
  /** One `resources/read` with params `{uri}`, plus `_meta` only when `meta` is given. */
  readonly readResource: (
    server: string,
    uri: string,
    meta?: RequestMeta,
    options?: ReadOptions
  ) => Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure>
  /** Every ready server passing `include`, concurrently, fully paginated under the guard; never fails. */
  readonly listAllResources: (include: (server: string) => boolean) => Effect.Effect<AggregateResult<Mcp.Resource>>
  /** The template variant of {@link listAllResources}. */
  readonly listAllResourceTemplates: (
    include: (server: string) => boolean
  ) => Effect.Effect<AggregateResult<Mcp.ResourceTemplate>>
  /** The server's tool catalog collected at startup (refreshed on `tools/list_changed`), with `_meta`. */
  readonly listTools: (server: string) => Effect.Effect<ReadonlyArray<Mcp.Tool>, Errors.ResourceFailure>
  /** One raw tool of the catalog, whatever its visibility; `None` when the server does not list it. */
  readonly toolInfo: (server: string, tool: string) => Effect.Effect<Option.Option<Mcp.Tool>, Errors.ResourceFailure>
  /** One `tools/call`; `arguments` omitted when not given. The result keeps the server's fields and key order. */
  readonly callTool: (
    server: string,
    tool: string,
    args?: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Mcp.CallToolResult, Errors.ResourceFailure>
  /**
   * How a ready server's changes of watched resources are learnt now (`stream`, `subscribe`, `poll` or
   * `none`; it falls back to `poll` when the server stops pushing); undefined for a server not ready. Never waits.
   */
  readonly changeDetection: (server: string) => ChangeDetection | undefined
  /** The server is ready and declared the feature (`completions`, or `resources.subscribe`); never waits. */
  readonly supports: (server: string, feature: ServerFeature) => boolean
  /**
   * Holds a subscription to `uri` on the server (waits for its startup like a read). Counted per
   * server handle: the first holder sends it (`resources/subscribe`, or on 2026-07-28 the uri joins
   * the connection's `subscriptions/listen` stream), later ones send nothing; every held subscription
   * is sent again on a reconnection, and survives a reload that keeps the entry unchanged.
   * A server that declared no `resources.subscribe` is sent nothing: the uri is held for change
   * detection to poll (`"subscribed"`), or with polling off (`poll_changes_sec = 0`) `"unsupported"`
   * and nothing is held.
   */
  readonly subscribe: (server: string, uri: string) => Effect.Effect<SubscribeOutcome, Errors.ResourceFailure>
  /** Drops one holder of `uri`; the last one sends `resources/unsubscribe` (or updates the listen stream). Never fails. */
  readonly unsubscribe: (server: string, uri: string) => Effect.Effect<void>
  /**
   * Every template the server lists, fully paginated under the guard. Kept per connection (dropped
   * on `notifications/resources/list_changed`, on reconnect and after `ResourceClient.templateListTtlMs`).
   */
  readonly resourceTemplates: (
    server: string
  ) => Effect.Effect<ReadonlyArray<Mcp.ResourceTemplate>, Errors.ResourceFailure>
  /** One `completion/complete` for an argument of a resource template (`ref/resource`). */
  readonly complete: (server: string, request: CompleteRequest) => Effect.Effect<Mcp.Completion, Errors.ResourceFailure>
  /**
   * The servers that declared the skills extension (`io.modelcontextprotocol/skills`): waits until
   * every enabled server's startup settled, then gives the ready ones that declared it, sorted by
   * name, with their `directoryRead` setting. Sends nothing.
   */
  readonly skillServers: Effect.Effect<ReadonlyArray<SkillServer>>
  /** One page of `skills/list` (params `{}` or `{cursor}`); fails when the server did not declare the extension. */
  readonly listSkills: (
    server: string,
    cursor?: string
  ) => Effect.Effect<McpSkills.ListSkillsResult, Errors.ResourceFailure>
  /** One `skills/get` with params `{uri}` (the URI of the skill's `SKILL.md`): the current entry. */
  readonly getSkill: (server: string, uri: string) => Effect.Effect<McpSkills.Skill, Errors.ResourceFailure>
  /** One page of `resources/directory/read`; fails unless the server declared `directoryRead: true`. */
  readonly readResourceDirectory: (
    server: string,
    uri: string,
    cursor?: string
  ) => Effect.Effect<McpSkills.ReadDirectoryResult, Errors.ResourceFailure>
}

/** A change a server reported (or a poll found) for one of its resources or lists. */
export type ResourceUpdate =
  | {
      readonly _tag: "updated"
      readonly server: string
      readonly uri: string
      /** A polled change: the SHA-256 (hex) of the new body (`Digest.ofContents`). */
      readonly digest?: string
      /** A polled change: the new body's size in bytes. */
      readonly size?: number
    }
  | { readonly _tag: "listChanged"; readonly server: string; readonly list: "resources" | "templates" }

/** What {@link ConnectionSet.subscribe} found: held (on the wire, or for polling), or a server that cannot tell changes (nothing held). */
export type SubscribeOutcome = "subscribed" | "unsupported"

/** A feature a server may declare that callers branch on. */
export type ServerFeature = "completions" | "subscribe"

/** A `completion/complete` for one argument of a resource template. */
export interface CompleteRequest {
  /** The template, exactly as listed. */
  readonly uriTemplate: string
  /** The variable being completed and what was typed so far. */
  readonly argument: { readonly name: string; readonly value: string }
  /** The values of the template's other variables, sent as `context.arguments`. */
  readonly context?: Readonly<Record<string, string>>
}

/** A ready server that declared the skills extension. */
export interface SkillServer {
  readonly server: string
  /** The server serves `resources/directory/read`. */
  readonly directoryRead: boolean
}

/** How a read may be cached beyond what the server said. */
export interface ReadOptions {
  /**
   * Keep the result this long (milliseconds) when the server sends no `ttlMs` (a server's `ttlMs`
   * wins). Such reads are cached apart from reads without this option, so that those still go to the
   * server as before. Used by the extended tool profile's windows.
   */
  readonly defaultTtlMs?: number
  /**
   * With {@link defaultTtlMs}: the form the result is kept (and answered) in, and the bytes that form
   * holds, which are what `[cache] max_bytes` counts. The caller owns the form (the extended tool
   * profile keeps large texts as their UTF-8 bytes only: tool-handlers' `Content.keptRead`). Without
   * it the result is kept as it came, counted by its JSON text.
   */
  readonly keptForm?: (result: Mcp.ReadResourceResult) => {
    readonly value: Mcp.ReadResourceResult
    readonly size: number
  }
}

/** A single connection outside any set (the threadless read). */
export interface ServerConnection {
  readonly name: string
  readonly readResource: (
    uri: string,
    meta?: RequestMeta
  ) => Effect.Effect<Mcp.ReadResourceResult, Errors.ResourceFailure>
}
