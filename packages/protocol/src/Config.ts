/**
 * The config file (app-server-protocol.md section 6): TOML or JSON, told apart by the extension, or
 * another host's JSON file (a top-level `mcpServers` object as desktop hosts, Claude Code and Cursor
 * write it, or VS Code's `servers`), whose `${VAR}` references are expanded and whose other
 * top-level keys are left unread. A bad file is refused with a {@link ConfigError} naming the file,
 * the key path and what is wrong. Reading the file is the app's (`ConfigFile` of the app-server).
 */
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { parse as parseToml } from "smol-toml"
import * as ServerUrl from "./ServerUrl.js"
import { TruncationPolicy, defaultPolicy } from "./Truncation.js"
import { type Environment, expandEntry, hostServerKeys, unreadKeys } from "./internal/hostFiles.js"
import { opt } from "./internal/schema.js"
import { record } from "./Records.js"

/** A config file that cannot be used: `{file}: {path}: {problem}`. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  file: Schema.String,
  path: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return this.path === "" ? `${this.file}: ${this.problem}` : `${this.file}: ${this.path}: ${this.problem}`
  }
}

/** `[A-Za-z0-9_-]+` */
export const serverNamePattern = /^[A-Za-z0-9_-]+$/

// Every key of the file is declared once below, as an Effect Schema: its encoded side is the file as
// written (snake_case keys, the JSON Schema of docs), its type side the config the code reads
// (camelCase, defaults applied); the exported types are derived from it. A server table is the one
// exception: its flat keys (`RawServer`) become a transport ({@link McpServerConfig}) in `toServer`,
// which checks the rules across keys a schema does not say.

/** A `${key}` optional in the file whose decoded value is `value` when absent (the file's key may differ: `fromKey`). */
const withDefault = <S extends Schema.Schema.All>(schema: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { exact: true, default: value })

/** Effect's internal `AutoTitle` annotation: the text an error shows for a schema without a title, never in a JSON Schema. */
const autoTitle = Symbol.for("effect/annotation/AutoTitle")

/**
 * A struct with renamed or defaulted keys, whose errors describe the table as written (`expected {
 * readonly max_bytes?: … }`, as a plain struct's do) rather than Effect's "Struct (Encoded side)".
 */
const table = <S extends Schema.Schema.AnyNoContext>(
  schema: S
): Schema.SchemaClass<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>> => {
  const ast = schema.ast
  if (!SchemaAST.isTransformation(ast) || !SchemaAST.isTypeLiteral(ast.from)) return Schema.make(ast)
  const from = new SchemaAST.TypeLiteral(ast.from.propertySignatures, ast.from.indexSignatures)
  // a table inside another (`ReadonlyArray<…>`, a record) is also described as written
  const described = { ...ast.annotations, [autoTitle]: String(from) }
  return Schema.make(new SchemaAST.Transformation(from, ast.to, ast.transformation, described))
}

const StringMap = record(Schema.String)
/** A number of seconds where 0 turns the feature off. */
const PollSeconds = Schema.Number.pipe(
  Schema.filter((n) => (n >= 0 && n <= 86400) || "must be a number of seconds with 0 <= t <= 86400 (0: off)", {
    jsonSchema: { minimum: 0, maximum: 86400 }
  })
)
/** A count of tries, at least 1. */
const Tries = Schema.Int.pipe(
  Schema.filter((n) => (n >= 1 && n <= 1000) || "must be an integer with 1 <= n <= 1000", {
    jsonSchema: { minimum: 1, maximum: 1000 }
  })
)
const Seconds = Schema.Number.pipe(
  Schema.filter((n) => (n > 0 && n <= 86400) || "must be a number of seconds with 0 < t <= 86400", {
    jsonSchema: { exclusiveMinimum: 0, maximum: 86400 }
  })
)
const Enabled = Schema.Struct({ enabled: opt(Schema.Boolean) })
/** At most 16 GiB. */
const maxCacheBytes = 2 ** 34
const CacheBytes = Schema.Number.pipe(
  Schema.filter(
    (n) =>
      (Number.isInteger(n) && n >= 0 && n <= maxCacheBytes) ||
      `must be a whole number of bytes with 0 <= n <= ${maxCacheBytes}`
  )
)
/** At most 1 GiB. */
const maxImageBytes = 2 ** 30
const ImageBytes = Schema.Number.pipe(
  Schema.filter(
    (n) =>
      (Number.isInteger(n) && n >= 0 && n <= maxImageBytes) ||
      `must be a whole number of bytes with 0 <= n <= ${maxImageBytes}`
  )
)
/** At most 10,000,000 entries. */
const maxSearchResources = 10_000_000
const SearchResources = Schema.Number.pipe(
  Schema.filter(
    (n) =>
      (Number.isInteger(n) && n >= 1 && n <= maxSearchResources) ||
      `must be a whole number with 1 <= n <= ${maxSearchResources}`
  )
)
const Concurrency = Schema.Number.pipe(
  Schema.filter((n) => (Number.isInteger(n) && n >= 1 && n <= 1024) || "must be a whole number with 1 <= n <= 1024")
)
const Port = Schema.Int.pipe(
  Schema.filter((n) => (n >= 0 && n <= 65535) || "must be a port number with 0 <= p <= 65535 (0: any free port)")
)

// -- Servers (decoded form) --

/** A stdio server: `command`, `args`, `env`, `cwd`. */
export const StdioTransport = Schema.TaggedStruct("stdio", {
  command: Schema.String,
  args: Schema.Array(Schema.String),
  env: StringMap,
  cwd: opt(Schema.String)
})
/** A stdio server: `command`, `args`, `env`, `cwd`. */
export type StdioTransport = typeof StdioTransport.Type

/** `oauth_client_auth` of a `client_credentials` grant; the key is never written in the config, only where to find it. */
export const OAuthClientAuthConfig = Schema.Union(
  Schema.TaggedStruct("client_secret_basic", {}),
  Schema.TaggedStruct("private_key_jwt", {
    privateKey: Schema.Union(
      Schema.TaggedStruct("file", { path: Schema.String }),
      Schema.TaggedStruct("envVar", { name: Schema.String })
    )
  })
)
/** `oauth_client_auth` of a `client_credentials` grant; the key is never written in the config, only where to find it. */
export type OAuthClientAuthConfig = typeof OAuthClientAuthConfig.Type

/** The enterprise IdP of `oauth_grant = "enterprise"`: `oauth_idp_*`. */
export const OAuthIdpConfig = Schema.Struct({
  /** `oauth_idp_token_endpoint`: the IdP's token endpoint (RFC 8693 token exchange). */
  tokenEndpoint: Schema.String,
  /** `oauth_idp_client_id`: this client at the IdP. */
  clientId: Schema.String,
  /** `oauth_idp_client_secret_env_var`: the variable holding its secret (none for a public client). */
  clientSecretEnvVar: opt(Schema.String),
  /** `oauth_idp_id_token_env_var`: the variable holding the user's ID token, provided by the deployment. */
  idTokenEnvVar: Schema.String
})
/** The enterprise IdP of `oauth_grant = "enterprise"`: `oauth_idp_*`. */
export type OAuthIdpConfig = typeof OAuthIdpConfig.Type

/**
 * A non-interactive OAuth grant of an HTTP server (`oauth_grant`): `client_credentials` (the client
 * authenticates as itself: `client_secret_basic` with the secret of `oauth_client_secret_env_var`,
 * or `private_key_jwt` with a key file or variable) or `enterprise` (cross-app access: the user's ID
 * token from the enterprise IdP is exchanged there for an ID-JAG, which the server's authorization
 * server takes as a JWT bearer grant). Both need `oauth_client_id`.
 */
export const OAuthGrantConfig = Schema.Union(
  Schema.TaggedStruct("client_credentials", { clientAuth: OAuthClientAuthConfig }),
  Schema.TaggedStruct("enterprise", { idp: OAuthIdpConfig })
)
/** A non-interactive OAuth grant of an HTTP server (`oauth_grant`): see the schema. */
export type OAuthGrantConfig = typeof OAuthGrantConfig.Type

/** An HTTP server: `url`, `bearer_token_env_var`, `http_headers`. */
export const HttpTransport = Schema.TaggedStruct("http", {
  url: Schema.String,
  /**
   * `type = "sse"`: the legacy HTTP+SSE transport (2024-11-05) only. Absent: streamable HTTP, falling
   * back to HTTP+SSE when the server refuses the first POST with 400, 404 or 405.
   */
  sse: opt(Schema.Boolean),
  bearerTokenEnvVar: opt(Schema.String),
  httpHeaders: StringMap,
  /** `oauth_client_id`: a client pre-registered with the server's authorization server (else dynamic registration). */
  oauthClientId: opt(Schema.String),
  /** `oauth_client_secret_env_var`: the variable holding that client's secret (none for a public client). */
  oauthClientSecretEnvVar: opt(Schema.String),
  /** `oauth_redirect_port`: the loopback port of the login redirect (a free port when absent). */
  oauthRedirectPort: opt(Schema.Number),
  // -- OAuth client registration and grants (docs/oauth.md) --
  /** `oauth_client_metadata_url`: the HTTPS URL of this client's metadata document (its client id where the authorization server accepts one). */
  oauthClientMetadataUrl: opt(Schema.String),
  /** `oauth_grant` and what it needs; absent: `authorization_code` (a login in a browser). */
  oauthGrant: opt(OAuthGrantConfig)
})
/** An HTTP server: `url`, `bearer_token_env_var`, `http_headers`. */
export type HttpTransport = typeof HttpTransport.Type

/** The values `oauth_grant` accepts. */
export const oauthGrants = ["authorization_code", "client_credentials", "enterprise"] as const
/** The values `oauth_client_auth` accepts. */
export const oauthClientAuths = ["client_secret_basic", "private_key_jwt"] as const

/**
 * `protocol_version` of a server entry: `auto` probes `server/discover` and falls back to
 * `initialize`; `legacy` runs `initialize` only (revisions 2024-11-05 to 2025-11-25); `2026-07-28`
 * speaks that revision only.
 */
export const ProtocolVersionSetting = Schema.Literal("auto", "legacy", "2026-07-28")
/** `protocol_version` of a server entry: `auto`, `legacy` or `2026-07-28`. */
export type ProtocolVersionSetting = typeof ProtocolVersionSetting.Type

/** The values `protocol_version` accepts. */
export const protocolVersionSettings: ReadonlyArray<ProtocolVersionSetting> = ProtocolVersionSetting.literals

/** `allow` and `deny` URI patterns of `[resources]` or `[mcp_servers.NAME.resources]` (the file's keys and the config's are the same). */
export const ResourceRulesConfig = Schema.Struct({
  allow: opt(Schema.Array(Schema.String.pipe(Schema.minLength(1)))),
  deny: opt(Schema.Array(Schema.String.pipe(Schema.minLength(1))))
})
/** `allow` and `deny` URI patterns of `[resources]` or `[mcp_servers.NAME.resources]`. */
export type ResourceRulesConfig = typeof ResourceRulesConfig.Type
/** A raw `[resources]` or `[mcp_servers.NAME.resources]` table: {@link ResourceRulesConfig}, whose keys are the file's. */
export const RawResourceRules = ResourceRulesConfig

/** One `[mcp_servers.NAME]` entry, defaults applied (built from a {@link RawServer} table by `toServer`). */
export const McpServerConfig = Schema.Struct({
  name: Schema.String,
  transport: Schema.Union(StdioTransport, HttpTransport),
  enabled: Schema.Boolean,
  startupTimeoutSec: Schema.Number,
  toolTimeoutSec: Schema.Number,
  maxMessageBytes: Schema.Number,
  /** `protocol_version`; absent means `auto`. */
  protocolVersion: opt(ProtocolVersionSetting),
  /** `poll_changes_sec`: how often the resources threads watch are polled when the server does not push (0: never); absent means 60. */
  pollChangesSec: opt(Schema.Number),
  /** `[mcp_servers.NAME.resources]`: this server's resource rules (docs/policy.md); absent: none. */
  resources: opt(ResourceRulesConfig)
})
/** One `[mcp_servers.NAME]` entry, defaults applied. */
export type McpServerConfig = typeof McpServerConfig.Type

/** Defaults of a server entry (resource-tools.md 1.1). */
export const serverDefaults = {
  enabled: true,
  startupTimeoutSec: 10,
  toolTimeoutSec: 300,
  maxMessageBytes: 67108864,
  pollChangesSec: 60
} as const

/** The OAuth registration and grant keys of an HTTP entry (checked together by `oauthOf`). */
const rawOAuthKeys = {
  oauth_client_metadata_url: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_grant: opt(Schema.Literal(...oauthGrants)),
  oauth_client_auth: opt(Schema.Literal(...oauthClientAuths)),
  oauth_private_key_file: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_private_key_env_var: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_idp_token_endpoint: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_idp_client_id: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_idp_client_secret_env_var: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_idp_id_token_env_var: opt(Schema.String.pipe(Schema.minLength(1)))
}

/** The values of a server's `type`: `http` and `streamable-http` are the same. */
export const serverTypes = ["stdio", "http", "streamable-http", "sse"] as const

/** A raw `[mcp_servers.NAME]` table as written in the file. */
export const RawServer = Schema.Struct({
  type: opt(Schema.Literal(...serverTypes)),
  command: opt(Schema.String.pipe(Schema.minLength(1))),
  args: opt(Schema.Array(Schema.String)),
  env: opt(StringMap),
  cwd: opt(Schema.String),
  url: opt(Schema.String.pipe(Schema.minLength(1))),
  bearer_token_env_var: opt(Schema.String.pipe(Schema.minLength(1))),
  http_headers: opt(StringMap),
  oauth_client_id: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_client_secret_env_var: opt(Schema.String.pipe(Schema.minLength(1))),
  oauth_redirect_port: opt(Schema.Int.pipe(Schema.between(1, 65535))),
  ...rawOAuthKeys,
  enabled: opt(Schema.Boolean),
  startup_timeout_sec: opt(Seconds),
  tool_timeout_sec: opt(Seconds),
  max_message_bytes: opt(Schema.Int.pipe(Schema.positive())),
  protocol_version: opt(ProtocolVersionSetting),
  poll_changes_sec: opt(PollSeconds),
  resources: opt(ResourceRulesConfig)
})

/**
 * A raw entry of another host's server map: a top-level `mcpServers` object (desktop hosts, Claude
 * Code, Cursor) or VS Code's `servers`. `${VAR}` references in its strings are expanded.
 */
export const RawDesktopServer = Schema.Struct({
  type: opt(Schema.Literal(...serverTypes)),
  command: opt(Schema.String.pipe(Schema.minLength(1))),
  args: opt(Schema.Array(Schema.String)),
  env: opt(StringMap),
  cwd: opt(Schema.String),
  url: opt(Schema.String.pipe(Schema.minLength(1))),
  headers: opt(StringMap),
  oauth: opt(
    Schema.Struct({
      clientId: opt(Schema.String.pipe(Schema.minLength(1))),
      callbackPort: opt(Schema.Int.pipe(Schema.between(1, 65535)))
    })
  ),
  enabled: opt(Schema.Boolean)
})

// -- The other tables (file form and config at once) --

/** The default `timeout_sec` of a hook command. */
export const hookDefaultTimeoutSec = 10

/** One `[[hooks.before_tool]]` or `[[hooks.after_tool]]` entry, defaults applied. */
export const HookCommandConfig = table(
  Schema.Struct({
    /** A regular expression on the tool name; absent: every tool. */
    matcher: opt(Schema.String),
    command: Schema.String.pipe(Schema.minLength(1)),
    args: withDefault(Schema.Array(Schema.String), () => []),
    timeoutSec: withDefault(Seconds, () => hookDefaultTimeoutSec).pipe(Schema.fromKey("timeout_sec"))
  })
)
/** One `[[hooks.before_tool]]` or `[[hooks.after_tool]]` entry, defaults applied. */
export type HookCommandConfig = typeof HookCommandConfig.Type
/** A raw `[[hooks.before_tool]]` / `[[hooks.after_tool]]` entry: the encoded side of {@link HookCommandConfig}. */
export const RawHookCommand = HookCommandConfig

/** `[hooks]`: the command hooks run around every model tool call (docs/policy.md). */
export const HooksConfig = table(
  Schema.Struct({
    beforeTool: withDefault(Schema.Array(HookCommandConfig), () => []).pipe(Schema.fromKey("before_tool")),
    afterTool: withDefault(Schema.Array(HookCommandConfig), () => []).pipe(Schema.fromKey("after_tool"))
  })
)
/** `[hooks]`: the command hooks run around every model tool call (docs/policy.md). */
export type HooksConfig = typeof HooksConfig.Type

/** `[apps.connectors.ID]` with its `[apps.connectors.ID.tools.NAME]` entries. */
export const ConnectorConfig = table(
  Schema.Struct({
    enabled: opt(Schema.Boolean),
    tools: withDefault(record(Enabled), () => ({}))
  })
)
/** `[apps.connectors.ID]` with its `[apps.connectors.ID.tools.NAME]` entries. */
export type ConnectorConfig = typeof ConnectorConfig.Type

/** `[search] max_resources`, `[search] build_timeout_sec`: the bounds of one connection set's search index. */
export const SearchConfig = table(
  Schema.Struct({
    /** The most resources and templates indexed per connection set (the servers' lists are walked up to it). */
    maxResources: withDefault(SearchResources, (): number => searchDefaults.maxResources).pipe(
      Schema.fromKey("max_resources")
    ),
    /** How long one build of a server's part of the index may take; a search never waits longer. */
    buildTimeoutSec: withDefault(Seconds, (): number => searchDefaults.buildTimeoutSec).pipe(
      Schema.fromKey("build_timeout_sec")
    )
  })
)
/** `[search] max_resources`, `[search] build_timeout_sec`: the bounds of one connection set's search index. */
export type SearchConfig = typeof SearchConfig.Type

/** The `[search]` defaults: 100,000 entries per set, 30 seconds per build. */
export const searchDefaults: SearchConfig = { maxResources: 100_000, buildTimeoutSec: 30 }

/** `[changes] body_max_bytes`, `thread_max_bytes`, `store_max_bytes`: the bounds of the body store. */
export const ChangesConfig = table(
  Schema.Struct({
    /** The largest body kept; a larger one keeps only its digest and size. */
    bodyMaxBytes: withDefault(CacheBytes, (): number => changesDefaults.bodyMaxBytes).pipe(
      Schema.fromKey("body_max_bytes")
    ),
    /** The bytes of bodies one thread keeps; past it that thread's oldest are released first. */
    threadMaxBytes: withDefault(CacheBytes, (): number => changesDefaults.threadMaxBytes).pipe(
      Schema.fromKey("thread_max_bytes")
    ),
    /** The bytes of the whole store; past it the oldest bodies are evicted first. */
    storeMaxBytes: withDefault(CacheBytes, (): number => changesDefaults.storeMaxBytes).pipe(
      Schema.fromKey("store_max_bytes")
    ),
    /** How often a server that accepted subscriptions is checked by a poll; a change it did not push marks it as not pushing (0: never). */
    verifyPushSec: withDefault(PollSeconds, (): number => changesDefaults.verifyPushSec).pipe(
      Schema.fromKey("verify_push_sec")
    ),
    /** How many times a dropped 2026-07-28 subscription stream is reopened (with backoff) before the server is polled instead. */
    streamReopenMax: withDefault(Tries, (): number => changesDefaults.streamReopenMax).pipe(
      Schema.fromKey("stream_reopen_max")
    )
  })
)
/** `[changes] body_max_bytes`, `thread_max_bytes`, `store_max_bytes`: the bounds of the body store. */
export type ChangesConfig = typeof ChangesConfig.Type

/** The `[changes]` defaults: 4 MiB per body, 64 MiB per thread, 512 MiB in all; a push check every 300 s; 8 stream reopens. */
export const changesDefaults: ChangesConfig = {
  bodyMaxBytes: 4 * 1024 * 1024,
  threadMaxBytes: 64 * 1024 * 1024,
  storeMaxBytes: 512 * 1024 * 1024,
  verifyPushSec: 300,
  streamReopenMax: 8
}

/** `[widgets]`: the widget methods and the ports of `mcp-resources widgets` (0: any free port). */
export const WidgetsConfig = table(
  Schema.Struct({
    /** `enabled`: whether `mcp/widget/*` answer (default true). */
    enabled: withDefault(Schema.Boolean, (): boolean => widgetsDefaults.enabled),
    /** `page_port`: the loopback port of the host page (default 0). */
    pagePort: withDefault(Port, (): number => widgetsDefaults.pagePort).pipe(Schema.fromKey("page_port")),
    /** `sandbox_port`: the loopback port of the sandbox proxies, an origin per widget (default 0). */
    sandboxPort: withDefault(Port, (): number => widgetsDefaults.sandboxPort).pipe(Schema.fromKey("sandbox_port"))
  })
)
/** `[widgets]`: the widget methods and the ports of `mcp-resources widgets` (0: any free port). */
export type WidgetsConfig = typeof WidgetsConfig.Type

/** `HOST:PORT` (a name, an IPv4 address or a bracketed IPv6 address; port 0 to 65535, 0: a free port). */
const RunnerAddress = Schema.String.pipe(
  Schema.filter(
    (s) => {
      const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(s)
      return (m !== null && Number(m[2]) <= 65535) || "must be HOST:PORT with 0 <= PORT <= 65535 (0: a free port)"
    },
    { jsonSchema: { pattern: "^\\S+:[0-9]{1,5}$" } }
  )
)
const Shards = Schema.Number.pipe(
  Schema.filter((n) => (Number.isInteger(n) && n >= 1 && n <= 10_000) || "must be a whole number with 1 <= n <= 10000")
)

/**
 * `[cluster] enabled`, `runner_address`, `shards`, `lock_expiration_sec`: several app-servers on one
 * PostgreSQL store serving as one (docs/deploying.md); `--cluster` turns it on as `enabled = true` does.
 */
export const ClusterConfig = table(
  Schema.Struct({
    enabled: withDefault(Schema.Boolean, (): boolean => clusterDefaults.enabled),
    /** Where the other instances reach this one (`HOST:PORT`); a non-loopback host needs `MCP_RESOURCES_CLUSTER_SECRET`. */
    runnerAddress: withDefault(RunnerAddress, (): string => clusterDefaults.runnerAddress).pipe(
      Schema.fromKey("runner_address")
    ),
    /** How many shards the threads are spread over; every instance of a cluster must say the same. */
    shards: withDefault(Shards, (): number => clusterDefaults.shards),
    /** How long a dead instance's shard locks hold before a survivor takes its threads over. */
    lockExpirationSec: withDefault(Seconds, (): number => clusterDefaults.lockExpirationSec).pipe(
      Schema.fromKey("lock_expiration_sec")
    )
  })
)
/** `[cluster]`: several app-servers on one PostgreSQL store as one service. */
export type ClusterConfig = typeof ClusterConfig.Type

/** The `[cluster]` defaults: off, a free loopback port, 300 shards, 35-second shard locks. */
export const clusterDefaults: ClusterConfig = {
  enabled: false,
  runnerAddress: "127.0.0.1:0",
  shards: 300,
  lockExpirationSec: 35
}

/** A redirect URI the browser is sent back to: https (http only on a loopback host), a path, no query or fragment. */
const RedirectUrl = Schema.String.pipe(
  Schema.filter(
    (s) => {
      const refused =
        "must be an https:// URL with a path and no query (http:// only on a loopback host), where the app-server's --listen listener is reached"
      try {
        const u = new URL(s)
        const loopback = u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]"
        const scheme = u.protocol === "https:" || (u.protocol === "http:" && loopback)
        return (scheme && u.pathname !== "/" && u.search === "" && u.hash === "" && u.username === "") || refused
      } catch {
        return refused
      }
    },
    { jsonSchema: { pattern: "^https?://" } }
  )
)

/**
 * `[oauth] redirect_url`: the redirect URI of logins through the app-server (`mcpServer/oauth/login`),
 * served by its `--listen` listener at that path, instead of a loopback listener of its own
 * (docs/oauth.md): a browser on another machine, or any instance of a cluster, completes the login.
 */
export const OAuthConfig = table(
  Schema.Struct({
    /** The public URL of the redirect (behind a load balancer: the balancer's), routed to the listener. */
    redirectUrl: opt(RedirectUrl).pipe(Schema.fromKey("redirect_url"))
  })
)
/** `[oauth]`: how logins through the app-server receive the browser's redirect. */
export type OAuthConfig = typeof OAuthConfig.Type

/** The `[widgets]` defaults. */
export const widgetsDefaults: WidgetsConfig = { enabled: true, pagePort: 0, sandboxPort: 0 }

/**
 * The tool profiles: `codex` (the resource tools and outputs of the Codex contract, byte for byte) and
 * `extended` (windows over large text, images as image parts, binary described, never base64).
 */
export const ToolProfile = Schema.Literal("codex", "extended")
/** The tool profiles: `codex` and `extended`. */
export type ToolProfile = typeof ToolProfile.Type

/** The values `[tools] profile` accepts. */
export const toolProfiles: ReadonlyArray<ToolProfile> = ToolProfile.literals

/** `[tools] profile`, `[tools] max_image_bytes`. */
export const ToolsConfig = table(
  Schema.Struct({
    profile: withDefault(ToolProfile, (): ToolProfile => toolsDefaults.profile),
    /** The largest image (decoded bytes) the extended profile sends as an image; a larger one is described. */
    maxImageBytes: withDefault(ImageBytes, (): number => toolsDefaults.maxImageBytes).pipe(
      Schema.fromKey("max_image_bytes")
    )
  })
)
/** `[tools] profile`, `[tools] max_image_bytes`. */
export type ToolsConfig = typeof ToolsConfig.Type

/** Defaults of `[tools]`: the codex profile, images up to 5 MiB. */
export const toolsDefaults: ToolsConfig = { profile: "codex", maxImageBytes: 5 * 1024 * 1024 }

/** `[cache] enabled`, `[cache] max_bytes`. */
export const CacheConfig = table(
  Schema.Struct({
    enabled: withDefault(Schema.Boolean, (): boolean => cacheDefaults.enabled),
    maxBytes: withDefault(CacheBytes, (): number => cacheDefaults.maxBytes).pipe(Schema.fromKey("max_bytes"))
  })
)
/** `[cache] enabled`, `[cache] max_bytes`. */
export type CacheConfig = typeof CacheConfig.Type

/** Defaults of `[cache]`: on, 64 MiB. */
export const cacheDefaults: CacheConfig = { enabled: true, maxBytes: 64 * 1024 * 1024 }

/**
 * `[mcp] startup_concurrency`, `[mcp] threadless_concurrency`, `[mcp] threadless_wait_sec`,
 * `[mcp] elicitation_timeout_sec`.
 */
export const McpLimits = table(
  Schema.Struct({
    /** Servers starting at the same time (connect, initialize, tools/list); the others wait their turn. */
    startupConcurrency: withDefault(Concurrency, (): number => mcpDefaults.startupConcurrency).pipe(
      Schema.fromKey("startup_concurrency")
    ),
    /** Threadless (throw-away) connections open at the same time. */
    threadlessConcurrency: withDefault(Concurrency, (): number => mcpDefaults.threadlessConcurrency).pipe(
      Schema.fromKey("threadless_concurrency")
    ),
    /** How long a threadless read waits for a free connection before it is refused. */
    threadlessWaitSec: withDefault(Seconds, (): number => mcpDefaults.threadlessWaitSec).pipe(
      Schema.fromKey("threadless_wait_sec")
    ),
    /** How long the app-server waits for a client's answer to an MCP server's elicitation (then declines). */
    elicitationTimeoutSec: withDefault(Seconds, (): number => mcpDefaults.elicitationTimeoutSec).pipe(
      Schema.fromKey("elicitation_timeout_sec")
    )
  })
)
/** `[mcp]`: limits on MCP connections of the whole process. */
export type McpLimits = typeof McpLimits.Type

/** Defaults of `[mcp]`. */
export const mcpDefaults: McpLimits = {
  startupConcurrency: 8,
  threadlessConcurrency: 8,
  threadlessWaitSec: 30,
  elicitationTimeoutSec: 120
}

/** `[orchestrator.mcp] enabled`, `[orchestrator.skills] enabled`: both on by default. */
const Orchestrator = Schema.transform(
  Schema.Struct({ mcp: opt(Enabled), skills: opt(Enabled) }),
  Schema.Struct({ mcpEnabled: Schema.Boolean, skillsEnabled: Schema.Boolean }),
  {
    strict: true,
    decode: (r) => ({ mcpEnabled: r.mcp?.enabled ?? true, skillsEnabled: r.skills?.enabled ?? true }),
    encode: (o) => ({ mcp: { enabled: o.mcpEnabled }, skills: { enabled: o.skillsEnabled } })
  }
)

/**
 * `[truncation] mode`, `[truncation] limit`: a {@link TruncationPolicy}, each key defaulting to
 * {@link defaultPolicy}'s (a transformation rather than defaulted keys, whose JSON Schema would
 * repeat the limit's annotations).
 */
const Truncation = Schema.transform(
  Schema.Struct({ mode: opt(TruncationPolicy.fields.mode), limit: opt(TruncationPolicy.fields.limit) }),
  Schema.typeSchema(TruncationPolicy),
  {
    strict: true,
    decode: (t) => ({ mode: t.mode ?? defaultPolicy.mode, limit: t.limit ?? defaultPolicy.limit }),
    encode: (t) => t
  }
)

/** `[skills] extension`: always decoded (on by default), though a config built in code may leave it out. */
const Skills = Schema.optionalToOptional(
  table(Schema.Struct({ extension: withDefault(Schema.Boolean, () => true) })),
  Schema.Struct({ extension: Schema.Boolean }),
  {
    decode: (section) => Option.some(Option.getOrElse(section, () => ({ extension: true }))),
    encode: (section) => section
  }
)

/**
 * The tables besides the server maps, in the file's order: each decodes to its part of {@link Config}
 * (an absent table is its defaults, except the optional ones).
 */
const sections = {
  orchestrator: withDefault(Orchestrator, () => ({ mcpEnabled: true, skillsEnabled: true })),
  apps: withDefault(
    table(
      Schema.Struct({
        serverName: withDefault(Schema.String.pipe(Schema.pattern(serverNamePattern)), () => "codex_apps").pipe(
          Schema.fromKey("server_name")
        ),
        connectors: withDefault(record(ConnectorConfig), () => ({}))
      })
    ),
    () => ({ serverName: "codex_apps", connectors: {} })
  ),
  truncation: withDefault(Truncation, () => ({ ...defaultPolicy })),
  persistence: withDefault(
    table(
      Schema.Struct({
        driver: withDefault(Schema.Literal("sqlite", "postgres", "memory"), () => "sqlite" as const),
        url: opt(Schema.String)
      })
    ),
    () => ({ driver: "sqlite" as const })
  ),
  /** `[cache]`: the resource client's result cache (the servers' `ttlMs`). */
  cache: withDefault(CacheConfig, () => ({ ...cacheDefaults })),
  /** `[mcp]`: limits on MCP connections of the whole process. */
  mcp: withDefault(McpLimits, () => ({ ...mcpDefaults })),
  /** `[tools]`: the tool profile and its limits. */
  tools: withDefault(ToolsConfig, () => ({ ...toolsDefaults })),
  /** `[resources]`: resource rules of every server (docs/policy.md); absent: none. */
  resources: opt(ResourceRulesConfig),
  /** `[hooks]`: command hooks around every model tool call; absent: none. */
  hooks: opt(HooksConfig),
  /** `[skills]`: `extension` gates discovery of the skills extension (`io.modelcontextprotocol/skills`); absent = on. */
  skills: Skills,
  /** `[widgets]`: the MCP Apps widget host (`mcp/widget/*`, `mcp-resources widgets`); absent means the defaults. */
  widgets: opt(WidgetsConfig),
  /** `[search]`: the resource search index of each connection set; absent means {@link searchDefaults}. */
  search: opt(SearchConfig),
  /** `[changes]`: the bounds of the body store (the bodies threads read); absent means {@link changesDefaults}. */
  changes: opt(ChangesConfig),
  /** `[cluster]`: several app-servers on one PostgreSQL store as one service; absent means {@link clusterDefaults}. */
  cluster: opt(ClusterConfig),
  /** `[oauth]`: where logins through the app-server receive the browser's redirect; absent: a loopback listener per login. */
  oauth: opt(OAuthConfig)
}

/** The whole config, defaults applied: the tables' decoded forms and the servers. */
export const Config = Schema.Struct({
  /** Servers sorted by name. */
  mcpServers: Schema.Array(McpServerConfig),
  ...sections
})
/** The whole config, defaults applied. */
export type Config = typeof Config.Type

/** The empty config: no MCP servers, every default. */
export const empty: Config = {
  mcpServers: [],
  orchestrator: { mcpEnabled: true, skillsEnabled: true },
  apps: { serverName: "codex_apps", connectors: {} },
  truncation: defaultPolicy,
  persistence: { driver: "sqlite" },
  cache: cacheDefaults,
  mcp: mcpDefaults,
  tools: toolsDefaults,
  skills: { extension: true }
}

/** The raw file, keys as written (its encoded side; its type side is {@link Config} but for the servers). */
export const RawConfig = Schema.Struct({
  mcp_servers: opt(record(RawServer)),
  mcpServers: opt(record(RawDesktopServer)),
  servers: opt(record(RawDesktopServer)),
  ...sections
})
/** The raw file decoded: the server maps as written, the other tables as in {@link Config}. */
export type RawConfig = typeof RawConfig.Type
const decodeRaw = Schema.decodeUnknownEither(RawConfig, { onExcessProperty: "error", errors: "first" })

const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((k) => (typeof k === "number" ? `[${k}]` : String(k))).join(".")

/** Server keys whose values may be secrets (`env` values, HTTP header values): an error never shows them. */
const secretKeys: ReadonlySet<PropertyKey> = new Set(["env", "http_headers", "headers"])

const isSecretPath = (path: ReadonlyArray<PropertyKey>): boolean =>
  (path[0] === "mcp_servers" || path[0] === "mcpServers" || path[0] === "servers") &&
  path.length > 2 &&
  secretKeys.has(path[2]!)

const problemOf = (issue: ParseResult.ArrayFormatterIssue): string => {
  if (issue._tag === "Unexpected") return "unknown key"
  if (issue._tag === "Missing") return "is required"
  const type = /^Expected (.*), actual (.*)$/s.exec(issue.message)
  if (isSecretPath(issue.path)) {
    return type ? `expected ${type[1]} (the value is not shown)` : "invalid value (the value is not shown)"
  }
  return type ? `expected ${type[1]}, got ${type[2]}` : issue.message
}

const firstIssue = (file: string, error: ParseResult.ParseError): ConfigError => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues[0]
  return new ConfigError({
    file,
    path: issue ? pathOf(issue.path) : "",
    problem: issue ? problemOf(issue) : "invalid config"
  })
}

const fail = (file: string, path: string, problem: string) => Either.left(new ConfigError({ file, path, problem }))

/** Validates one server table (desktop entries are first renamed to these keys; `keyName` names them back). */
const toServer = (
  file: string,
  key: string,
  name: string,
  s: typeof RawServer.Type,
  keyName: (k: string) => string
): Either.Either<McpServerConfig, ConfigError> => {
  // `type` is checked against the fields: `stdio` needs `command`; `http`, `streamable-http` and `sse` need `url`
  if (s.type === "stdio" && s.command === undefined) return fail(file, `${key}.type`, "`stdio` requires `command`")
  if (s.type !== undefined && s.type !== "stdio" && s.url === undefined) {
    return fail(file, `${key}.type`, `\`${s.type}\` requires \`url\``)
  }
  if (!serverNamePattern.test(name)) return fail(file, key, "server names must match [A-Za-z0-9_-]+")
  if (s.command === "") return fail(file, `${key}.${keyName("command")}`, "must not be empty")
  if ((s.command === undefined) === (s.url === undefined)) {
    return fail(file, key, "exactly one of `command` (stdio) or `url` (streamable HTTP) must be set")
  }
  const misplaced =
    s.command !== undefined
      ? (
          [
            "bearer_token_env_var",
            "http_headers",
            "oauth_client_id",
            "oauth_client_secret_env_var",
            "oauth_redirect_port",
            ...oauthKeyNames
          ] as const
        ).find((k) => s[k] !== undefined)
      : (["args", "env", "cwd"] as const).find((k) => s[k] !== undefined)
  if (misplaced !== undefined) {
    return fail(
      file,
      `${key}.${keyName(misplaced)}`,
      s.command !== undefined
        ? "only applies to streamable HTTP servers (`url`)"
        : "only applies to stdio servers (`command`)"
    )
  }
  if (s.url !== undefined && !isHttpUrl(s.url)) {
    return fail(
      file,
      `${key}.url`,
      `must be an http:// or https:// URL, got ${JSON.stringify(ServerUrl.redactIn(s.url, s.url))}`
    )
  }
  // credentials in the URL would be shown wherever the URL is: they go in a header, never in the URL
  if (s.url !== undefined && ServerUrl.hasCredentials(s.url)) {
    return fail(
      file,
      `${key}.url`,
      `must not carry credentials (user:password@), which would be shown wherever the URL is; send them in \`${keyName("http_headers")}\` (e.g. an Authorization header)`
    )
  }
  const oauth = oauthOf(s)
  if (Either.isLeft(oauth)) return fail(file, `${key}.${keyName(oauth.left.key)}`, oauth.left.problem)
  return Either.right({
    name,
    transport:
      s.command !== undefined
        ? {
            _tag: "stdio",
            command: s.command,
            args: s.args ?? [],
            env: s.env ?? {},
            ...(s.cwd !== undefined ? { cwd: s.cwd } : {})
          }
        : {
            _tag: "http",
            url: s.url!,
            ...(s.type === "sse" ? { sse: true } : {}),
            ...(s.bearer_token_env_var !== undefined ? { bearerTokenEnvVar: s.bearer_token_env_var } : {}),
            httpHeaders: s.http_headers ?? {},
            ...(s.oauth_client_id !== undefined ? { oauthClientId: s.oauth_client_id } : {}),
            ...(s.oauth_client_secret_env_var !== undefined
              ? { oauthClientSecretEnvVar: s.oauth_client_secret_env_var }
              : {}),
            ...(s.oauth_redirect_port !== undefined ? { oauthRedirectPort: s.oauth_redirect_port } : {}),
            ...oauth.right
          },
    enabled: s.enabled ?? serverDefaults.enabled,
    startupTimeoutSec: s.startup_timeout_sec ?? serverDefaults.startupTimeoutSec,
    toolTimeoutSec: s.tool_timeout_sec ?? serverDefaults.toolTimeoutSec,
    maxMessageBytes: s.max_message_bytes ?? serverDefaults.maxMessageBytes,
    ...(s.protocol_version !== undefined ? { protocolVersion: s.protocol_version } : {}),
    ...(s.poll_changes_sec !== undefined ? { pollChangesSec: s.poll_changes_sec } : {}),
    ...(s.resources !== undefined ? { resources: s.resources } : {})
  })
}

/** The names of the OAuth registration and grant keys. */
const oauthKeyNames = Object.keys(rawOAuthKeys) as ReadonlyArray<keyof typeof rawOAuthKeys>

type OAuthFields = Pick<HttpTransport, "oauthClientMetadataUrl" | "oauthGrant">

/**
 * The OAuth registration and grant of an HTTP entry, or the first key that is wrong and why: a
 * non-interactive grant needs `oauth_client_id` and its credentials' keys, and each key applies to
 * one grant only.
 */
const oauthOf = (
  s: typeof RawServer.Type
): Either.Either<OAuthFields, { readonly key: string; readonly problem: string }> => {
  const problem = (key: string, text: string) => Either.left({ key, problem: text })
  const grant = s.oauth_grant ?? "authorization_code"
  const only = (keys: ReadonlyArray<keyof typeof rawOAuthKeys | "oauth_redirect_port">, applies: string) => {
    const wrong = keys.find((k) => s[k] !== undefined)
    return wrong === undefined ? undefined : problem(wrong, `only applies to ${applies}`)
  }
  const misplaced =
    (grant !== "authorization_code"
      ? only(
          ["oauth_client_metadata_url", "oauth_redirect_port"],
          'oauth_grant = "authorization_code" (a login in a browser)'
        )
      : undefined) ??
    (grant !== "client_credentials"
      ? only(
          ["oauth_client_auth", "oauth_private_key_file", "oauth_private_key_env_var"],
          'oauth_grant = "client_credentials"'
        )
      : undefined) ??
    (grant !== "enterprise"
      ? only(
          [
            "oauth_idp_token_endpoint",
            "oauth_idp_client_id",
            "oauth_idp_client_secret_env_var",
            "oauth_idp_id_token_env_var"
          ],
          'oauth_grant = "enterprise"'
        )
      : undefined)
  if (misplaced !== undefined) return misplaced
  if (grant !== "authorization_code") {
    if (s.bearer_token_env_var !== undefined) {
      return problem("oauth_grant", "does not apply with `bearer_token_env_var` (the entry sends its own token)")
    }
    if (s.oauth_client_id === undefined) return problem("oauth_grant", `"${grant}" needs \`oauth_client_id\``)
  }
  switch (grant) {
    case "authorization_code": {
      const url = s.oauth_client_metadata_url
      if (url === undefined) return Either.right({})
      if (!isMetadataDocumentUrl(url)) {
        return problem(
          "oauth_client_metadata_url",
          `must be an https:// URL with a path (the client's metadata document), got ${JSON.stringify(url)}`
        )
      }
      return Either.right({ oauthClientMetadataUrl: url })
    }
    case "client_credentials": {
      if ((s.oauth_client_auth ?? "client_secret_basic") === "client_secret_basic") {
        if (s.oauth_private_key_file !== undefined || s.oauth_private_key_env_var !== undefined) {
          const key = s.oauth_private_key_file !== undefined ? "oauth_private_key_file" : "oauth_private_key_env_var"
          return problem(key, 'only applies to oauth_client_auth = "private_key_jwt"')
        }
        if (s.oauth_client_secret_env_var === undefined) {
          return problem(
            "oauth_grant",
            '"client_credentials" with client_secret_basic needs `oauth_client_secret_env_var`'
          )
        }
        return Either.right({ oauthGrant: { _tag: "client_credentials", clientAuth: { _tag: "client_secret_basic" } } })
      }
      if (s.oauth_client_secret_env_var !== undefined) {
        return problem("oauth_client_secret_env_var", 'is not used with oauth_client_auth = "private_key_jwt"')
      }
      const file = s.oauth_private_key_file
      const variable = s.oauth_private_key_env_var
      if ((file === undefined) === (variable === undefined)) {
        return problem(
          "oauth_client_auth",
          '"private_key_jwt" needs exactly one of `oauth_private_key_file` or `oauth_private_key_env_var`'
        )
      }
      return Either.right({
        oauthGrant: {
          _tag: "client_credentials",
          clientAuth: {
            _tag: "private_key_jwt",
            privateKey: file !== undefined ? { _tag: "file", path: file } : { _tag: "envVar", name: variable! }
          }
        }
      })
    }
    case "enterprise": {
      const missing = (["oauth_idp_token_endpoint", "oauth_idp_client_id", "oauth_idp_id_token_env_var"] as const).find(
        (k) => s[k] === undefined
      )
      if (missing !== undefined) return problem("oauth_grant", `"enterprise" needs \`${missing}\``)
      if (s.oauth_client_secret_env_var === undefined) {
        return problem(
          "oauth_grant",
          '"enterprise" needs `oauth_client_secret_env_var` (the client\'s secret at the authorization server)'
        )
      }
      const endpoint = s.oauth_idp_token_endpoint!
      if (!isTokenEndpointUrl(endpoint)) {
        return problem(
          "oauth_idp_token_endpoint",
          `must be an https:// URL (http:// only on a loopback host), got ${JSON.stringify(endpoint)}`
        )
      }
      return Either.right({
        oauthGrant: {
          _tag: "enterprise",
          idp: {
            tokenEndpoint: endpoint,
            clientId: s.oauth_idp_client_id!,
            ...(s.oauth_idp_client_secret_env_var !== undefined
              ? { clientSecretEnvVar: s.oauth_idp_client_secret_env_var }
              : {}),
            idTokenEnvVar: s.oauth_idp_id_token_env_var!
          }
        }
      })
    }
  }
}

/** A client ID metadata document's URL: https with a path other than `/`. */
const isMetadataDocumentUrl = (s: string): boolean => {
  try {
    const u = new URL(s)
    return u.protocol === "https:" && u.pathname !== "/"
  } catch {
    return false
  }
}

/** An endpoint that may receive credentials: https, or http on a loopback host. */
const isTokenEndpointUrl = (s: string): boolean => {
  try {
    const u = new URL(s)
    const loopback = u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]"
    return u.protocol === "https:" || (u.protocol === "http:" && loopback)
  } catch {
    return false
  }
}

/** The first hook whose `matcher` is not a regular expression, as the error naming it. */
const badMatcher = (file: string, hooks: HooksConfig): ConfigError | undefined => {
  for (const [key, entries] of [
    ["before_tool", hooks.beforeTool],
    ["after_tool", hooks.afterTool]
  ] as const) {
    for (const [i, h] of entries.entries()) {
      if (h.matcher === undefined) continue
      try {
        new RegExp(h.matcher)
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e)
        return new ConfigError({
          file,
          path: `hooks.${key}[${i}].matcher`,
          problem: `not a valid regular expression: ${reason}`
        })
      }
    }
  }
  return undefined
}

/** Options of {@link decode}, {@link parse} and {@link load}. */
export interface Options {
  /**
   * The environment `${VAR}` in other hosts' server entries reads (default: none, every variable
   * unset). The protocol reads no environment of its own: the app passes `process.env`.
   */
  readonly env?: Environment
}

/** A config file read: the config, and the top-level keys of another host's file that were left unread. */
export interface Read {
  readonly config: Config
  /** The top-level keys of a file holding `mcpServers` or `servers` besides that map (e.g. `preferences`, `inputs`). */
  readonly unreadKeys: ReadonlyArray<string>
}

/** The renaming of a host entry's keys to a `[mcp_servers.NAME]` table's, for error paths. */
const hostKeyName = (k: string): string =>
  k === "http_headers"
    ? "headers"
    : k === "oauth_client_id"
      ? "oauth.clientId"
      : k === "oauth_redirect_port"
        ? "oauth.callbackPort"
        : k

/** One entry of another host's server map (`mcpServers.NAME` or `servers.NAME`), its variables expanded. */
const hostServer = (
  file: string,
  key: string,
  name: string,
  entry: typeof RawDesktopServer.Type,
  env: Environment
): Either.Either<McpServerConfig, ConfigError> => {
  const expanded = expandEntry(entry, env)
  if (Either.isLeft(expanded)) return fail(file, `${key}.${expanded.left.key}`, expanded.left.problem)
  const { headers, oauth, ...rest } = expanded.right
  return toServer(
    file,
    key,
    name,
    {
      ...rest,
      ...(headers !== undefined ? { http_headers: headers } : {}),
      ...(oauth?.clientId !== undefined ? { oauth_client_id: oauth.clientId } : {}),
      ...(oauth?.callbackPort !== undefined ? { oauth_redirect_port: oauth.callbackPort } : {})
    },
    hostKeyName
  )
}

/** Turns a parsed file value (TOML table or JSON object) into a {@link Config}. */
export const decode = (raw: unknown, file: string, options: Options = {}): Either.Either<Config, ConfigError> =>
  Either.map(decodeRead(raw, file, options), (read) => read.config)

/**
 * {@link decode}, also naming the top-level keys it left unread: a file holding `mcpServers` or
 * `servers` is another host's, of which only that server map is read.
 */
export const decodeRead = (raw: unknown, file: string, options: Options = {}): Either.Either<Read, ConfigError> => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return fail(file, "", "the config must be a table (TOML) or an object (JSON)")
  }
  const unread = unreadKeys(raw as Record<string, unknown>)
  const known =
    unread.length === 0 ? raw : Object.fromEntries(Object.entries(raw).filter(([key]) => !unread.includes(key)))
  const decoded = decodeRaw(known)
  if (Either.isLeft(decoded)) return Either.left(firstIssue(file, decoded.left))
  const r = decoded.right
  const forms = (["mcp_servers", ...hostServerKeys] as const).filter((key) => r[key] !== undefined)
  if (forms.length > 1) {
    return fail(file, forms[1]!, `a config may hold \`${forms[0]}\` or \`${forms[1]}\`, not both`)
  }
  const { mcp_servers, mcpServers: _desktop, servers: _vsCode, ...tables } = r
  const env = options.env ?? {}
  const servers: Array<McpServerConfig> = []
  for (const [name, s] of Object.entries(mcp_servers ?? {})) {
    const server = toServer(file, `mcp_servers.${name}`, name, s, (k) => k)
    if (Either.isLeft(server)) return Either.left(server.left)
    servers.push(server.right)
  }
  for (const form of hostServerKeys) {
    for (const [name, s] of Object.entries(r[form] ?? {})) {
      const server = hostServer(file, `${form}.${name}`, name, s, env)
      if (Either.isLeft(server)) return Either.left(server.left)
      servers.push(server.right)
    }
  }
  servers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const hooks = tables.hooks === undefined ? undefined : badMatcher(file, tables.hooks)
  if (hooks !== undefined) return Either.left(hooks)
  const config: Config = { mcpServers: servers, ...tables }
  return Either.right({ config, unreadKeys: unread })
}

const isHttpUrl = (s: string): boolean => {
  try {
    const u = new URL(s)
    return u.protocol === "http:" || u.protocol === "https:"
  } catch {
    return false
  }
}

/** Parses config text; the format comes from the file name's extension (`.toml` or `.json`). */
export const parse = (text: string, file: string, options: Options = {}): Either.Either<Config, ConfigError> =>
  Either.map(parseRead(text, file, options), (read) => read.config)

/** {@link parse}, also naming the top-level keys of another host's file that were left unread. */
export const parseRead = (text: string, file: string, options: Options = {}): Either.Either<Read, ConfigError> => {
  const lower = file.toLowerCase()
  const format = lower.endsWith(".json") ? "json" : lower.endsWith(".toml") ? "toml" : undefined
  if (format === undefined) return fail(file, "", "the config file name must end in .toml or .json")
  let raw: unknown
  try {
    raw = format === "json" ? JSON.parse(text) : parseToml(text)
  } catch (e) {
    const reason = e instanceof Error ? e.message.split("\n")[0] : String(e)
    return fail(file, "", `not valid ${format === "json" ? "JSON" : "TOML"}: ${reason}`)
  }
  // other hosts' forms (and their `${VAR}` expansion) are JSON only
  const host = format === "toml" ? hostServerKeys.find((key) => key in (raw as object)) : undefined
  if (host !== undefined) {
    return fail(file, host, "is the JSON form of other hosts' files; a TOML file names servers in `[mcp_servers.NAME]`")
  }
  return decodeRead(raw, file, options)
}
