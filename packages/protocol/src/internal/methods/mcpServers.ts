/** `mcpServer/list` and the OAuth login of HTTP servers (`mcpServer/oauth/*`). */
import { Schema } from "effect"
import { opt } from "../schema.js"
import { EmptyObject } from "./threads.js"

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
      /**
       * Ready servers: how changes of the resources threads read are learnt (docs/templates-and-changes.md,
       * "Detecting changes"): `stream` (the 2026-07-28 subscription stream), `subscribe`
       * (`resources/subscribe`), `poll` (read again every `poll_changes_sec`) or `none`.
       */
      changeDetection: opt(Schema.Literal("stream", "subscribe", "poll", "none")),
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

/**
 * `mcpServer/statusChanged` params: a configured server's status changed (starting, ready, failed,
 * disabled, a reconnection attempt; also after a config reload); the server's `mcpServer/list` entry
 * as it is now. Sent to every initialized connection, so that a client awaits a server instead of
 * polling `mcpServer/list`.
 */
export const McpServerStatusChangedNotification = McpServerListResult.fields.servers.value

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
