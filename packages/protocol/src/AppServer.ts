/**
 * The app-server wire contract (app-server-protocol.md): JSON-RPC error codes and messages, and the
 * params, results and notifications of every method. Framing and the error mapping live in the app.
 */
import { Either, type ParseResult, Schema, SchemaAST } from "effect"
import * as Config from "./Config.js"
import { CallToolResult, isJsonObject, isPlainObject, JsonObject, ResourceContents } from "./Mcp.js"
import * as McpSkills from "./McpSkills.js"
import { McpToolCallItem } from "./ToolCallItem.js"
import { ToolSpec } from "./ToolPayload.js"
import { TruncationPolicy } from "./Truncation.js"
import { WidgetUiMeta } from "./Widget.js"
import { opt } from "./internal/schema.js"
import { McpResourceSearchParams, McpResourceSearchResult } from "./internal/resourceSearch.js"
import { record } from "./Records.js"

/** JSON-RPC error codes used by the app-server. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
  requestCancelled: -32800
} as const

/** The fixed and templated messages of app-server errors (app-server-protocol.md sections 2 and 3). */
export const messages = {
  /** `-32700` for a line that is not JSON. */
  parseError: "Parse error",
  /** `-32600` for a line over {@link maxLineBytes}. */
  requestTooLarge: "Request too large",
  /** `-32600` for JSON that is not a request or notification. */
  invalidRequest: "Invalid request",
  /** `-32600` for params that do not match the method's schema. */
  invalidParams: (detail: string) => `Invalid request: ${detail}`,
  /** `-32600` before `initialize` succeeded. */
  notInitialized: "Not initialized",
  /** `-32600` for a second `initialize`. */
  alreadyInitialized: "Already initialized",
  /** `-32601` for an unknown method. */
  methodNotFound: (method: string) => `Method not found: ${method}`,
  /** `-32800` for a request cancelled by `$/cancelRequest`. */
  requestCancelled: "Request cancelled",
  /** `-32603` for requests still running when shutdown's grace period ends. */
  shuttingDown: "server shutting down",
  /** `-32600` for an unknown thread. */
  threadNotFound: (threadId: string) => `thread not found: ${threadId}`,
  /** `-32600` for a turn never started in the thread, or rolled back. */
  turnNotFound: (turnId: string) => `turn not found: ${turnId}`,
  /** `-32600` for a call id that already produced items in the thread's current history. */
  duplicateCallId: (callId: string) => `duplicate callId: ${callId}`,
  /** `-32600` for a direct read with `originCallId` and no `threadId`. */
  originCallIdRequiresThreadId: "originCallId requires threadId",
  /** `-32603` when an append lost a race with another process. */
  modifiedConcurrently: (threadId: string) => `thread ${threadId} was modified concurrently`,
  /** `-32600` from `mcp/widget/*` when `[widgets] enabled = false`. */
  widgetsDisabled: "widgets are disabled ([widgets] enabled = false)",
  /** `-32600` from `mcp/widget/*` for a call id with no completed MCP tool call in the thread's current history. */
  widgetCallNotFound: (callId: string) => `no completed MCP tool call ${callId} in this thread`,
  /** `-32600` from `mcp/widget/read` for a completed call whose tool names no `ui://` resource. */
  widgetNoResource: (callId: string) => `MCP tool call ${callId} has no UI resource`,
  /** `-32600` from `mcp/widget/readResource` for a uri that is not `ui://`. */
  widgetNotUiUri: (uri: string) => `a widget may read only ui:// resources of its own server, not ${uri}`,
  /** `-32600` from `mcp/widget/callTool` for a tool its server does not list. */
  widgetToolNotFound: (server: string, name: string) => `tool ${name} is not a tool of MCP server ${server}`,
  /** `-32600` from `mcp/widget/callTool` for a tool whose visibility excludes `app`. */
  widgetToolNotForApps: (name: string) =>
    `tool ${name} is not available to widgets: its _meta.ui.visibility does not include "app"`,
  /** `-32600` from `mcp/widget/callTool` for an apps-server tool the app policy disables (as for the model). */
  widgetToolDisabled: (name: string) =>
    `tool ${name} is disabled by the app policy ([apps.connectors] enabled = false)`,
  /** The error message of a cancelled `tool/call` item. */
  callCancelled: "cancelled",
  /** `-32600` from `mcp/resource/subscribe` and `mcp/resource/unsubscribe` on a thread of the codex tool profile. */
  subscriptionsNeedExtended: (threadId: string) =>
    `thread ${threadId} uses the codex tool profile: resource subscriptions need the extended profile`,
  /** `-32603` for a result its handler built in another shape than the method's result schema (a bug of the server). */
  invalidResult: (method: string, detail: string) =>
    `internal error: the result of ${method} does not match its schema: ${detail}`
} as const

/** The longest accepted line (8 MiB, not counting the newline). */
export const maxLineBytes = 8_388_608

/** `serverInfo.name` of the `initialize` result. */
export const serverName = "mcp-resources-app-server"

/** `protocolVersion` of the `initialize` result. */
export const protocolVersion = 1

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative()).annotations({ identifier: "integer >= 0" })

/**
 * The tool profiles this server offers: `codex` (the resource tools and MCP tool calls of the reference
 * design, byte for byte) and `extended` (windows over large text, images as images, binary described).
 */
export const toolProfiles: ReadonlyArray<Config.ToolProfile> = Config.toolProfiles

/**
 * What a client declares at `initialize`: the server-to-client requests it answers (for example
 * `elicitation`) and, for elicitation, the modes it answers (`form`, `url`; absent: form only). Names
 * the server does not know are kept and ignored, so that a newer client works
 * with an older server. Later client capabilities are added as optional fields.
 */
export const ClientCapabilities = Schema.Struct({
  serverRequests: opt(
    Schema.Array(Schema.String).annotations({
      description: "The server-to-client requests this client answers, e.g. elicitation."
    })
  ),
  elicitationModes: opt(
    Schema.Array(Schema.String).annotations({
      description:
        "The elicitation modes this client answers (form, url); absent: form only. URL-mode requests reach only a client that names url."
    })
  )
}).annotations({ identifier: "ClientCapabilities" })
/** What a client declares at `initialize`. */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * The optional capabilities this server offers, named in the `initialize` result. Each later
 * capability (change notifications, widget methods, server requests) is added as a field.
 */
export const ServerCapabilities = Schema.Struct({
  toolProfiles: Schema.Array(Schema.String).annotations({
    description: "The tool profiles this server offers (codex, extended). Clients ignore names they do not know."
  }),
  serverRequests: opt(
    Schema.Array(Schema.String).annotations({
      description:
        "The server-to-client requests this server may send to a client that declared it answers them (mcpServer/elicitation/request)."
    })
  ),
  oauthLogin: opt(
    Schema.Boolean.annotations({
      description:
        "True: `mcpServer/oauth/login` logs in to an OAuth HTTP server, `mcpServer/oauth/loginCompleted` reports the end, `mcpServer/oauth/scopeRequired` announces a scope step-up, `mcpServer/list` shows `auth` and `requiredScopes`."
    })
  ),
  skillsExtension: opt(
    Schema.Boolean.annotations({
      description:
        "The server offers skills/extension/list, skills/extension/read and skills/extension/changed (skills over MCP)."
    })
  ),
  widgets: opt(
    Schema.Boolean.annotations({
      description:
        "True: the server answers mcp/widget/list, mcp/widget/tools, mcp/widget/read, mcp/widget/callTool and mcp/widget/readResource."
    })
  ),
  resourceChanges: opt(
    Schema.Boolean.annotations({
      description:
        "True: extended-profile threads subscribe to the resources they read; the server sends mcp/resource/changed, turn/start returns resourceChanges, and mcp/resource/subscribe and mcp/resource/unsubscribe are answered."
    })
  )
}).annotations({ identifier: "ServerCapabilities" })
/** The optional capabilities this server offers. */
export type ServerCapabilities = typeof ServerCapabilities.Type

/** The capabilities of this server. */
export const serverCapabilities: ServerCapabilities = {
  toolProfiles: toolProfiles,
  serverRequests: ["mcpServer/elicitation/request"],
  oauthLogin: true,
  skillsExtension: true,
  widgets: true,
  resourceChanges: true
}

/** `initialize` params. */
export const InitializeParams = Schema.Struct({
  clientInfo: Schema.Struct({ name: Schema.String, version: opt(Schema.String) }),
  capabilities: opt(ClientCapabilities)
})
/**
 * `initialize` result. `capabilities` is present exactly when the client sent `capabilities` (even
 * `{}`): a client of protocol version 1 that declares nothing gets the version-1 result unchanged.
 */
export const InitializeResult = Schema.Struct({
  serverInfo: Schema.Struct({ name: Schema.Literal(serverName), version: Schema.String }),
  protocolVersion: Schema.Literal(protocolVersion),
  capabilities: opt(ServerCapabilities)
})

/** The per-thread config override of `thread/start`. */
export const ThreadConfig = Schema.Struct({
  orchestratorMcpEnabled: opt(Schema.Boolean),
  truncation: opt(Schema.Struct({ mode: TruncationPolicy.fields.mode, limit: NonNegativeInt })),
  toolProfile: opt(
    Schema.Literal("codex", "extended").annotations({
      description: "The thread's tool profile; absent: `[tools] profile` of the config (default codex)."
    })
  ),
  resources: opt(
    Schema.Struct({
      deny: opt(Schema.Array(Schema.String.pipe(Schema.minLength(1))))
    }).annotations({
      description:
        "Resource rules the thread adds to the config's (docs/policy.md): `deny` patterns apply to every server. A thread can only add rules, never remove them."
    })
  )
})
/** The per-thread config override of `thread/start`. */
export type ThreadConfig = typeof ThreadConfig.Type

/** `{id, ephemeral}` */
export const Thread = Schema.Struct({ id: Schema.String, ephemeral: Schema.Boolean })
/** `{thread: {id, ephemeral}}` */
export const ThreadResult = Schema.Struct({ thread: Thread })
/** `{threadId}`: the params of methods that only name a thread. */
export const ThreadIdParams = Schema.Struct({ threadId: Schema.String })
/** `{}`: the params or result of methods without any. */
export const EmptyObject = Schema.Struct({})

/** `thread/start` params. */
export const ThreadStartParams = Schema.Struct({ ephemeral: opt(Schema.Boolean), config: opt(ThreadConfig) })
/** `thread/start` result. */
export const ThreadStartResult = ThreadResult
/** `thread/resume` params. */
export const ThreadResumeParams = ThreadIdParams
/** `thread/resume` result. */
export const ThreadResumeResult = ThreadResult
/** `thread/list` params. */
export const ThreadListParams = EmptyObject
/** `thread/list` result: newest first; `createdAt` is ISO 8601 UTC. */
export const ThreadListResult = Schema.Struct({
  threads: Schema.Array(Schema.Struct({ id: Schema.String, ephemeral: Schema.Boolean, createdAt: Schema.String }))
})
/** `thread/delete` params. */
export const ThreadDeleteParams = ThreadIdParams
/** `thread/delete` result. */
export const ThreadDeleteResult = EmptyObject

/** `turn/start` params. */
export const TurnStartParams = Schema.Struct({ threadId: Schema.String, turnId: opt(Schema.String) })
/**
 * A resource of the thread that changed since the previous `turn/start` (several updates of one
 * resource are one change; `changedAt` is the time of the latest, ISO 8601 UTC).
 */
export const ResourceChange = Schema.Struct({
  server: Schema.String,
  uri: Schema.String,
  readInCallId: Schema.NullOr(Schema.String).annotations({
    description:
      "The call id of the read_mcp_resource call that last read it; null for a subscription made with mcp/resource/subscribe."
  }),
  changedAt: Schema.String.annotations({ description: "When the latest update arrived (ISO 8601 UTC)." })
}).annotations({ identifier: "ResourceChange" })
/** A resource of the thread that changed since the previous `turn/start`. */
export type ResourceChange = typeof ResourceChange.Type

/** `turn/start` result. */
export const TurnStartResult = Schema.Struct({
  turn: Schema.Struct({ id: Schema.String }),
  resourceChanges: opt(
    Schema.Array(ResourceChange).annotations({
      description:
        "Extended-profile threads only (absent on codex threads): the subscribed resources that changed since the previous turn/start, one entry per resource, oldest change first."
    })
  )
})

/** `tool/list` params. */
export const ToolListParams = ThreadIdParams
/** `tool/list` result. */
export const ToolListResult = Schema.Struct({ tools: Schema.Array(ToolSpec) })

/** `tool/call` params; `arguments` is the model's raw JSON text. */
export const ToolCallParams = Schema.Struct({
  threadId: Schema.String,
  turnId: Schema.String,
  callId: Schema.String,
  name: Schema.String,
  arguments: Schema.String
})
/** A text part of a tool result as the model gets it. */
export const TextContentItem = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }).annotations({
  identifier: "TextContentItem"
})
/** An image part of a tool result: `data` is base64; `uri` names the resource it came from, when one did. */
export const ImageContentItem = Schema.Struct({
  type: Schema.Literal("image"),
  mimeType: Schema.String,
  data: Schema.String,
  uri: opt(Schema.String)
}).annotations({ identifier: "ImageContentItem" })
/** One part of a tool result in the extended profile. */
export const ContentItem = Schema.Union(TextContentItem, ImageContentItem).annotations({ identifier: "ContentItem" })
/** One part of a tool result in the extended profile. */
export type ContentItem = typeof ContentItem.Type

/** `tool/call` result; `contentItems` only in the extended tool profile (the output's parts, images as images). */
export const ToolCallResult = Schema.Struct({
  callId: Schema.String,
  output: Schema.String,
  success: Schema.Boolean,
  contentItems: opt(
    Schema.Array(ContentItem).annotations({
      description: "Extended profile only: the output text, then each image sent as an image (base64 data)."
    })
  )
})

/** `mcp/resource/read` (alias `mcpServer/resource/read`) params. */
export const McpResourceReadParams = Schema.Struct({
  threadId: opt(Schema.NullOr(Schema.String)),
  originCallId: opt(Schema.NullOr(Schema.String)),
  server: Schema.String,
  uri: Schema.String,
  connectorId: opt(Schema.NullOr(Schema.String))
})
/** `mcp/resource/read` result. */
export const McpResourceReadResult = Schema.Struct({
  contents: Schema.Array(ResourceContents),
  originCallId: Schema.NullOr(Schema.String)
})

/** A content item `{uri, mimeType?, text | blob, _meta?}` as the schema encodes it; undefined when the schema must decide. */
const contentItem = (item: unknown): Record<string, unknown> | undefined => {
  if (!isPlainObject(item) || !Object.hasOwn(item, "uri") || typeof item.uri !== "string") return undefined
  const hasText = Object.hasOwn(item, "text")
  // an item with both (or neither) is the union's business
  if (hasText === Object.hasOwn(item, "blob")) return undefined
  const body = hasText ? item.text : item.blob
  if (typeof body !== "string") return undefined
  const out: Record<string, unknown> = { uri: item.uri }
  if (Object.hasOwn(item, "mimeType")) {
    if (typeof item.mimeType !== "string") return undefined
    out.mimeType = item.mimeType
  }
  out[hasText ? "text" : "blob"] = body
  if (Object.hasOwn(item, "_meta")) {
    if (!isJsonObject(item._meta)) return undefined
    out._meta = item._meta
  }
  return out
}

/**
 * The encoded `mcp/resource/read` result, as encoding through {@link McpResourceReadResult} gives it
 * (the known fields in the schema's order, `_meta` objects shared), without the schema machinery:
 * the app-server answers every read through it. Undefined for anything it does not recognise, which
 * the schema then encodes or refuses (naming the offending field).
 */
export const fastEncodeReadResult = (value: unknown): unknown => {
  if (!isPlainObject(value) || !Object.hasOwn(value, "contents") || !Object.hasOwn(value, "originCallId")) {
    return undefined
  }
  const { contents, originCallId } = value
  if (!Array.isArray(contents) || (originCallId !== null && typeof originCallId !== "string")) return undefined
  const encoded: Array<Record<string, unknown>> = []
  for (const item of contents) {
    const out = contentItem(item)
    if (out === undefined) return undefined
    encoded.push(out)
  }
  return { contents: encoded, originCallId }
}

/** `mcp/resource/subscribe` and `mcp/resource/unsubscribe` params: one resource of a server, for a thread. */
export const McpResourceSubscribeParams = Schema.Struct({
  threadId: Schema.String.annotations({ description: "A thread on the extended tool profile." }),
  server: Schema.String,
  uri: Schema.String
})
/** `mcp/resource/subscribe` result: whether the server took the subscription. */
export const McpResourceSubscribeResult = Schema.Struct({
  subscribed: Schema.Boolean.annotations({
    description:
      "True: the thread is subscribed and its changes come as mcp/resource/changed and in turn/start; false: the server does not support resource subscriptions (nothing is subscribed)."
  })
})
/** `mcp/resource/unsubscribe` params. */
export const McpResourceUnsubscribeParams = McpResourceSubscribeParams
/** `mcp/resource/unsubscribe` result. */
export const McpResourceUnsubscribeResult = EmptyObject
/** `mcp/resource/changed` notification params: a resource a thread is subscribed to changed. */
export const McpResourceChangedNotification = Schema.Struct({
  threadId: Schema.String,
  server: Schema.String,
  uri: Schema.String,
  readInCallId: ResourceChange.fields.readInCallId,
  changedAt: ResourceChange.fields.changedAt
})

/** `mcp/resource/complete` params: one variable of a listed resource template (extended profile's completion, for UIs). */
export const McpResourceCompleteParams = Schema.Struct({
  threadId: opt(
    Schema.NullOr(Schema.String).annotations({
      description: "Complete on this thread's binding; absent or null: the latest connection set."
    })
  ),
  server: Schema.String,
  uriTemplate: Schema.String.annotations({ description: "A template exactly as the server lists it." }),
  argument: Schema.String.annotations({ description: "The template variable to complete." }),
  value: Schema.String.annotations({ description: "What is typed so far (may be empty)." }),
  context: opt(
    record(Schema.String).annotations({
      description: "Values of the template's other variables, sent as `context.arguments`."
    })
  )
})
/** `mcp/resource/complete` result: the server's candidates. */
export const McpResourceCompleteResult = Schema.Struct({
  values: Schema.Array(Schema.String),
  total: opt(Schema.Number.annotations({ description: "Candidates in all, when the server says." })),
  hasMore: Schema.Boolean
})
export {
  McpResourceSearchParams,
  McpResourceSearchResult,
  ResourceSearchFailure,
  ResourceSearchMatch
} from "./internal/resourceSearch.js"
/** `mcp/widget/list` params. */
export const WidgetListParams = ThreadIdParams
/** One widget of `mcp/widget/list`: a completed MCP tool call whose tool names a `ui://` resource. */
export const WidgetEntry = Schema.Struct({
  callId: Schema.String,
  turnId: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  uri: Schema.String
}).annotations({ identifier: "WidgetEntry" })
/** `mcp/widget/list` result: the thread's widgets in completion order. */
export const WidgetListResult = Schema.Struct({ widgets: Schema.Array(WidgetEntry) })
/** `mcp/widget/tools` params: the thread whose binding's widget tools to list. */
export const WidgetToolsParams = ThreadIdParams
/** One widget tool of `mcp/widget/tools`: a model-visible, enabled MCP tool that names a `ui://` resource. */
export const WidgetTool = Schema.Struct({
  server: Schema.String,
  tool: Schema.String.annotations({ description: "The raw MCP tool name of the server." }),
  callName: Schema.String.annotations({
    description: "The tool's function name in tool/list (mcp__{server}__{tool}): the name tool/call takes."
  }),
  title: opt(Schema.String),
  description: opt(Schema.String),
  inputSchema: JsonObject.annotations({ description: "The tool's JSON Schema for its arguments, as listed." }),
  resourceUri: Schema.String.annotations({ description: "The ui:// resource the tool names (its widget)." })
}).annotations({ identifier: "WidgetTool" })
/** `mcp/widget/tools` result: the widget tools of the thread's ready servers, servers in bytewise order. */
export const WidgetToolsResult = Schema.Struct({ tools: Schema.Array(WidgetTool) })
/** `mcp/widget/read` params: the thread and the completed MCP tool call whose widget to read. */
export const WidgetReadParams = Schema.Struct({ threadId: Schema.String, callId: Schema.String })
/**
 * `mcp/widget/read` result: the call's UI resource (its HTML), the UI metadata of the list entry and
 * the content item (the content item wins), and the call's input and result for the view.
 */
export const WidgetReadResult = Schema.Struct({
  server: Schema.String,
  callId: Schema.String,
  tool: Schema.String,
  uri: Schema.String,
  mimeType: Schema.String,
  html: Schema.String,
  ui: WidgetUiMeta,
  toolInput: Schema.Unknown.annotations({ description: "The call's arguments (a JSON object, or null)." }),
  toolResult: CallToolResult
})
/** `mcp/widget/callTool` params: a widget's tool call on behalf of its originating call `callId`. */
export const WidgetCallToolParams = Schema.Struct({
  threadId: Schema.String,
  callId: Schema.String,
  name: Schema.String.annotations({ description: "The raw MCP tool name of the call's server." }),
  arguments: opt(JsonObject)
})
/** `mcp/widget/callTool` result: the MCP result and the id of the widget-initiated item that records it. */
export const WidgetCallToolResult = Schema.Struct({ itemId: Schema.String, result: CallToolResult })
/** `mcp/widget/readResource` params: a widget's read of a `ui://` resource of its call's server. */
export const WidgetReadResourceParams = Schema.Struct({
  threadId: Schema.String,
  callId: Schema.String,
  uri: Schema.String
})
/** `mcp/widget/readResource` result. */
export const WidgetReadResourceResult = Schema.Struct({ contents: Schema.Array(ResourceContents) })

/** `thread/rollback` params. */
export const ThreadRollbackParams = Schema.Struct({ threadId: Schema.String, numTurns: NonNegativeInt })
/** `thread/rollback` result. */
export const ThreadRollbackResult = Schema.Struct({ thread: Schema.Struct({ id: Schema.String }) })
/** `thread/compact` params. */
export const ThreadCompactParams = ThreadIdParams
/** `thread/compact` result. */
export const ThreadCompactResult = EmptyObject

/** `config/mcpServer/reload` params. */
export const ConfigReloadParams = EmptyObject
/** `config/mcpServer/reload` result. */
export const ConfigReloadResult = EmptyObject

/**
 * The auth state of an HTTP server in `mcpServer/list`: `none` (no OAuth login stored or asked for),
 * `loggedIn` (tokens stored), `loginRequired` (the server asked for OAuth and has no usable token).
 */
export const AuthState = Schema.Literal("none", "loggedIn", "loginRequired").annotations({ identifier: "AuthState" })

/** A server's status in `mcpServer/list`. */
export const ServerStatus = Schema.Literal("starting", "ready", "failed", "disabled")
/** `mcpServer/list` params. */
export const McpServerListParams = EmptyObject
/** `mcpServer/list` result: sorted by name. */
export const McpServerListResult = Schema.Struct({
  servers: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      status: ServerStatus,
      transport: Schema.Literal("stdio", "http"),
      /**
       * HTTP servers only: `streamable` (streamable HTTP) or `sse` (the legacy HTTP+SSE transport,
       * configured with `type = "sse"` or fallen back to when the server refused streamable HTTP).
       */
      httpTransport: opt(Schema.Literal("streamable", "sse")),
      error: opt(Schema.String),
      /** The negotiated protocol revision of a ready server. */
      protocolVersion: opt(Schema.String),
      /** Set while a dropped remote server is reconnected: the attempt under way or waited for (from 1). */
      reconnectAttempt: opt(Schema.Int),
      /** HTTP servers: whether the server logs in with OAuth and has a stored login. */
      auth: opt(AuthState),
      /**
       * OAuth HTTP servers: the scopes the server asked for with `403 insufficient_scope` since its
       * last login; `mcpServer/oauth/login` asks for them (with those granted before). Absent: none.
       */
      requiredScopes: opt(Schema.Array(Schema.String))
    })
  )
})

/** `mcpServer/oauth/login` params: the configured server to log in to. */
export const McpServerOAuthLoginParams = Schema.Struct({ server: Schema.String })
/** `mcpServer/oauth/login` result: the URL the user opens; the end comes as `mcpServer/oauth/loginCompleted`. */
export const McpServerOAuthLoginResult = Schema.Struct({ authorizationUrl: Schema.String })
/** `mcpServer/oauth/loginCompleted` params: how a login ended (`error` says why it failed; never a secret). */
export const McpServerOAuthLoginCompletedNotification = Schema.Struct({
  server: Schema.String,
  success: Schema.Boolean,
  error: opt(Schema.String)
})

/**
 * `mcpServer/oauth/scopeRequired` params: a server refused a request with `403 insufficient_scope`
 * for scopes no stored token has; `requiredScopes` is every scope it asked for since its last login.
 * A login (`mcpServer/oauth/login`) asks for them; the refused request can then be made again.
 */
export const McpServerOAuthScopeRequiredNotification = Schema.Struct({
  server: Schema.String,
  requiredScopes: Schema.Array(Schema.String)
})

/** A catalog entry of `skills/list`. */
export const SkillEntry = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  package: Schema.String,
  mainResource: Schema.String,
  visible: Schema.Boolean
})
/** `skills/list` params. */
export const SkillsListParams = ThreadIdParams
/** `skills/list` result. */
export const SkillsListResult = Schema.Struct({
  skills: Schema.Array(SkillEntry),
  warnings: Schema.Array(Schema.String),
  truncated: Schema.Boolean
})
/** `skills/read` params. */
export const SkillsReadParams = Schema.Struct({
  threadId: Schema.String,
  package: Schema.String,
  resource: Schema.String
})
/** `skills/read` result; `next_cursor` is snake_case and always null. */
export const SkillsReadResult = Schema.Struct({
  resource: Schema.String,
  contents: Schema.String,
  next_cursor: Schema.Null
})

/** An entry of `skills/extension/list`: a skill of a server that declares the MCP skills extension. */
export const ExtensionSkillEntry = Schema.Struct({
  server: Schema.String.annotations({ description: "The configured name of the server the skill comes from." }),
  uri: Schema.String.annotations({ description: "The URI of the skill's SKILL.md; (server, uri) is the identity." }),
  name: Schema.String.annotations({
    description:
      "The name shown to the model: {server}/{name}, or {server}/{skill path} when a server lists a name twice."
  }),
  frontmatter: JsonObject.annotations({ description: "The SKILL.md frontmatter verbatim (name, description, ...)." }),
  resources: McpSkills.Manifest,
  allowedTools: Schema.Unknown.annotations({
    description: "The frontmatter's allowed-tools, shown only: it is never applied; null when absent."
  }),
  problem: Schema.NullOr(Schema.String).annotations({
    description: "Why the skill cannot be read (more than 512 files or 16 MiB); null when it can."
  })
}).annotations({ identifier: "ExtensionSkillEntry" })
/** `skills/extension/list` params: none. */
export const SkillsExtensionListParams = Schema.Struct({})
/** `skills/extension/list` result. */
export const SkillsExtensionListResult = Schema.Struct({
  skills: Schema.Array(ExtensionSkillEntry),
  warnings: Schema.Array(Schema.String)
})
/** `skills/extension/read` params: one listed file of a skill of `server`. */
export const SkillsExtensionReadParams = Schema.Struct({ server: Schema.String, uri: Schema.String })
/** `skills/extension/read` result: the verified file as text, or its bytes as base64 `blob`. */
export const SkillsExtensionReadResult = Schema.Struct({
  server: Schema.String,
  uri: Schema.String,
  skill: Schema.String.annotations({ description: "The URI of the SKILL.md of the skill the file belongs to." }),
  mimeType: Schema.NullOr(Schema.String),
  text: opt(Schema.String),
  blob: opt(Schema.String),
  verified: Schema.Boolean.annotations({
    description: "Checked against the manifest's size and digest; false for a skill whose manifest is dynamic."
  })
})
/** `skills/extension/changed` notification params: the file set of a skill changed; drop its approvals. */
export const SkillsExtensionChangedNotification = Schema.Struct({ server: Schema.String, uri: Schema.String })

/** `turn/started` notification params. */
export const TurnStartedNotification = Schema.Struct({ threadId: Schema.String, turnId: Schema.String })
/** `item/started` and `item/completed` notification params. */
export const ItemNotification = Schema.Struct({ threadId: Schema.String, turnId: Schema.String, item: McpToolCallItem })
/** `thread/rolledBack` notification params. */
export const ThreadRolledBackNotification = Schema.Struct({ threadId: Schema.String, numTurns: NonNegativeInt })

/** `$/cancelRequest` params (a client notification): the id of the request to cancel. */
export const CancelRequestParams = Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) })

/** A primitive value of an accepted elicitation's `content` (MCP: string, number, boolean or string[]). */
const ElicitationValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String))

/**
 * `mcpServer/elicitation/request` params (server to client): an MCP server of the thread asks the
 * user; `params` is the server's `elicitation/create` params as sent (`mode` form or url).
 */
export const ElicitationRequestParams = Schema.Struct({
  threadId: Schema.String,
  server: Schema.String.annotations({ description: "The MCP server's name in the config." }),
  params: record(Schema.Unknown).annotations({
    description:
      "The server's elicitation/create params as sent: {mode?: form, message, requestedSchema} or {mode: url, message, url, elicitationId}."
  }),
  turnId: opt(Schema.String.annotations({ description: "The turn of the call the request came during, when known." })),
  callId: opt(Schema.String.annotations({ description: "The call the request came during, when known." }))
}).annotations({ identifier: "ElicitationRequestParams" })

/** `mcpServer/elicitation/request` result: the user's answer, sent back to the MCP server. */
export const ElicitationRequestResult = Schema.Union(
  Schema.Struct({
    action: Schema.Literal("accept"),
    content: opt(
      record(ElicitationValue).annotations({
        description: "The form's values (form mode); absent in URL mode."
      })
    )
  }),
  Schema.Struct({ action: Schema.Literal("decline") }),
  Schema.Struct({ action: Schema.Literal("cancel") })
).annotations({ identifier: "ElicitationRequestResult" })

/** Server-to-client request method name -> params schema (sent only to clients that declared the method). */
export const serverRequests = {
  "mcpServer/elicitation/request": ElicitationRequestParams
} as const
/** A server-to-client request method. */
export type ServerRequestMethod = keyof typeof serverRequests
/** Server-to-client request method name -> result schema (the client's answer). */
export const serverRequestResults = {
  "mcpServer/elicitation/request": ElicitationRequestResult
} as const
/** The params of a server-to-client request. */
export type ServerRequestParams<M extends ServerRequestMethod> = (typeof serverRequests)[M]["Type"]
/** The result of a server-to-client request. */
export type ServerRequestResult<M extends ServerRequestMethod> = (typeof serverRequestResults)[M]["Type"]

/** Client notification method name -> params schema (`initialized` is accepted and ignored). */
export const clientNotifications = {
  "$/cancelRequest": CancelRequestParams,
  initialized: Schema.Unknown
} as const

/** Notification method name -> params schema. */
export const notifications = {
  "turn/started": TurnStartedNotification,
  "item/started": ItemNotification,
  "item/completed": ItemNotification,
  "thread/rolledBack": ThreadRolledBackNotification,
  "mcpServer/oauth/loginCompleted": McpServerOAuthLoginCompletedNotification,
  "mcpServer/oauth/scopeRequired": McpServerOAuthScopeRequiredNotification,
  "skills/extension/changed": SkillsExtensionChangedNotification,
  "mcp/resource/changed": McpResourceChangedNotification
} as const
/** A notification method the app-server sends. */
export type NotificationMethod = keyof typeof notifications

/** Method name -> params schema, for every method of app-server-protocol.md section 3 and skills.md section 6. */
export const methods = {
  initialize: InitializeParams,
  "thread/start": ThreadStartParams,
  "thread/resume": ThreadResumeParams,
  "thread/list": ThreadListParams,
  "thread/delete": ThreadDeleteParams,
  "turn/start": TurnStartParams,
  "tool/list": ToolListParams,
  "tool/call": ToolCallParams,
  "mcp/resource/read": McpResourceReadParams,
  "mcpServer/resource/read": McpResourceReadParams,
  "mcp/resource/complete": McpResourceCompleteParams,
  "mcp/resource/search": McpResourceSearchParams,
  "mcp/resource/subscribe": McpResourceSubscribeParams,
  "mcp/resource/unsubscribe": McpResourceUnsubscribeParams,
  "thread/rollback": ThreadRollbackParams,
  "thread/compact": ThreadCompactParams,
  "config/mcpServer/reload": ConfigReloadParams,
  "mcpServer/list": McpServerListParams,
  "mcpServer/oauth/login": McpServerOAuthLoginParams,
  "skills/list": SkillsListParams,
  "skills/read": SkillsReadParams,
  "skills/extension/list": SkillsExtensionListParams,
  "skills/extension/read": SkillsExtensionReadParams,
  "mcp/widget/list": WidgetListParams,
  "mcp/widget/tools": WidgetToolsParams,
  "mcp/widget/read": WidgetReadParams,
  "mcp/widget/callTool": WidgetCallToolParams,
  "mcp/widget/readResource": WidgetReadResourceParams
} as const
/** A method the app-server answers. */
export type Method = keyof typeof methods
/** The decoded params of a method. */
export type Params<M extends Method> = (typeof methods)[M]["Type"]

/** Method name -> result schema (same keys as {@link methods}). */
export const results = {
  initialize: InitializeResult,
  "thread/start": ThreadStartResult,
  "thread/resume": ThreadResumeResult,
  "thread/list": ThreadListResult,
  "thread/delete": ThreadDeleteResult,
  "turn/start": TurnStartResult,
  "tool/list": ToolListResult,
  "tool/call": ToolCallResult,
  "mcp/resource/read": McpResourceReadResult,
  "mcpServer/resource/read": McpResourceReadResult,
  "mcp/resource/complete": McpResourceCompleteResult,
  "mcp/resource/search": McpResourceSearchResult,
  "mcp/resource/subscribe": McpResourceSubscribeResult,
  "mcp/resource/unsubscribe": McpResourceUnsubscribeResult,
  "thread/rollback": ThreadRollbackResult,
  "thread/compact": ThreadCompactResult,
  "config/mcpServer/reload": ConfigReloadResult,
  "mcpServer/list": McpServerListResult,
  "mcpServer/oauth/login": McpServerOAuthLoginResult,
  "skills/list": SkillsListResult,
  "skills/read": SkillsReadResult,
  "skills/extension/list": SkillsExtensionListResult,
  "skills/extension/read": SkillsExtensionReadResult,
  "mcp/widget/list": WidgetListResult,
  "mcp/widget/tools": WidgetToolsResult,
  "mcp/widget/read": WidgetReadResult,
  "mcp/widget/callTool": WidgetCallToolResult,
  "mcp/widget/readResource": WidgetReadResourceResult
} as const satisfies Record<Method, Schema.Schema.Any>
/** The result of a method. */
export type Result<M extends Method> = (typeof results)[M]["Type"]

/** True when `method` is one the app-server answers. */
export const isMethod = (method: string): method is Method => Object.hasOwn(methods, method)

const describeAst = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "TypeLiteral":
      return "object"
    case "TupleType":
      return "array"
    case "Refinement":
    case "Transformation": {
      const identifier = SchemaAST.getIdentifierAnnotation(ast)
      return identifier._tag === "Some" ? identifier.value : String(ast)
    }
    default:
      return String(ast)
  }
}

const showActual = (actual: unknown): string => {
  if (actual === undefined) return "undefined"
  const text = JSON.stringify(actual)
  if (text === undefined) return String(actual)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`),
    ""
  )

const describeIssue = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): string => {
  const at = (text: string) => (path.length === 0 ? text : `${pathText(path)}: ${text}`)
  switch (issue._tag) {
    case "Pointer":
      return describeIssue(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Missing":
      return `missing field "${pathText(path)}"`
    case "Unexpected":
      return path.length === 0 ? "unexpected field" : `unexpected field "${pathText(path)}"`
    case "Composite": {
      if (SchemaAST.isUnion(issue.ast)) {
        return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
      }
      const first = Array.isArray(issue.issues) ? issue.issues[0] : issue.issues
      return describeIssue(first as ParseResult.ParseIssue, path)
    }
    case "Refinement":
      // A named refinement (e.g. "integer >= 0") describes itself better than its inner parts.
      if (issue.kind === "From" && SchemaAST.getIdentifierAnnotation(issue.ast)._tag === "None") {
        return describeIssue(issue.issue, path)
      }
      return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
    case "Transformation":
      return describeIssue(issue.issue, path)
    case "Type":
      return at(`expected ${describeAst(issue.ast)}, got ${showActual(issue.actual)}`)
    case "Forbidden":
      return at("forbidden")
  }
}

/** A one-line detail naming the first offending field: `threadId: expected string, got 5` or `missing field "threadId"`. */
export const formatParamsError = (error: ParseResult.ParseError): string => describeIssue(error.issue, [])

/**
 * Decodes a method's params (an absent params object counts as `{}`); the left side is the detail for
 * `Invalid request: {detail}`.
 */
export const decodeParams = <M extends Method>(method: M, params: unknown): Either.Either<Params<M>, string> =>
  decodeWith(methods[method] as unknown as Schema.Schema<Params<M>, unknown>, params)

/** How deep params may nest. No method's params come close; the bound keeps decoding off the stack limit. */
export const maxParamsDepth = 64

/**
 * The path of the first value nested deeper than `max` levels, or undefined. Iterative, so that any
 * depth JSON.parse accepted is measured without recursion.
 */
export const tooDeep = (value: unknown, max: number = maxParamsDepth): ReadonlyArray<string> | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  // The common case, flat params (no nested object), is answered without walking paths.
  if (max > 0 && !hasNestedObject(value)) return undefined
  const stack: Array<{ value: unknown; path: ReadonlyArray<string> }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (path.length >= max) return path
    for (const [key, child] of Object.entries(v)) stack.push({ value: child, path: [...path, key] })
  }
  return undefined
}

/** Whether any of an object's own values is itself an object (or array). */
const hasNestedObject = (value: object): boolean => {
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === "object" && child !== null) return true
    return false
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const child = (value as Record<string, unknown>)[key]
    if (typeof child === "object" && child !== null) return true
  }
  return false
}

/** One compiled decoder per schema (`errors: "first"`). */
const decoders = new WeakMap<object, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>()
const decoderFor = <A, I>(schema: Schema.Schema<A, I>): ((u: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  let decoder = decoders.get(schema)
  if (decoder === undefined) {
    decoder = Schema.decodeUnknownEither(schema, { errors: "first" }) as (
      u: unknown
    ) => Either.Either<unknown, ParseResult.ParseError>
    decoders.set(schema, decoder)
  }
  return decoder as (u: unknown) => Either.Either<A, ParseResult.ParseError>
}

/** Decodes params with a schema (absent params count as `{}`); the failure is the detail of `Invalid request: {detail}`. */
export const decodeWith = <A, I>(schema: Schema.Schema<A, I>, params: unknown): Either.Either<A, string> => {
  const deep = tooDeep(params)
  if (deep !== undefined) {
    return Either.left(`${deep.slice(0, 3).join(".")}: nested deeper than ${maxParamsDepth} levels`)
  }
  const decoded = decoderFor(schema)(params === undefined ? {} : params)
  return Either.isRight(decoded) ? (decoded as Either.Either<A, never>) : Either.left(formatParamsError(decoded.left))
}
