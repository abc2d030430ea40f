/** `initialize`: the server's identity, the protocol version and both sides' capabilities. */
import { Schema } from "effect"
import * as Config from "../../Config.js"
import { opt } from "../schema.js"

/** `serverInfo.name` of the `initialize` result. */
export const serverName = "mcp-resources-app-server"

/** `protocolVersion` of the `initialize` result. */
export const protocolVersion = 1

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
