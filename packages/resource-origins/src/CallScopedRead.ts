/**
 * The call-scoped read (resource-origins.md section 8): reads a widget resource on behalf of an earlier
 * apps-server tool call, after checking the remembered origin again against the latest connection set,
 * tool catalog and app configuration. Connector and link ids come from the origin, never from a client.
 */
import { Errors, type Mcp } from "@mcp-resources/protocol"
import { AppPolicy, ResourceClient } from "@mcp-resources/resource-client"
import { Effect, Option } from "effect"
import { isRecord } from "@mcp-resources/protocol/Records"
import { OriginStore } from "./OriginStore.js"
import { notFoundMessage } from "./OriginState.js"

/** Check 1: `originating MCP tool call was not found or did not complete successfully` */
export const notFound = notFoundMessage
/** Check 2: `{appsServerName} MCP server is unavailable` */
export const serverUnavailable = (appsServerName: string): string => `${appsServerName} MCP server is unavailable`
/** Check 3: `originating MCP tool call does not match the requested resource` */
export const resourceMismatch = "originating MCP tool call does not match the requested resource"
/** Check 4: `originating MCP tool call has ambiguous account selection` */
export const ambiguousAccount = "originating MCP tool call has ambiguous account selection"
/** Check 5: `originating MCP tool is unavailable` */
export const toolUnavailable = "originating MCP tool is unavailable"
/** Check 6: `originating MCP tool connector does not match its app context` */
export const connectorMismatch = "originating MCP tool connector does not match its app context"
/** Check 7: `originating MCP tool link does not match its app context` */
export const linkMismatch = "originating MCP tool link does not match its app context"
/** Check 8: `originating MCP tool requires an explicit account link` */
export const explicitLinkRequired = "originating MCP tool requires an explicit account link"
/** Check 9: `originating MCP tool is disabled by app configuration` */
export const disabledByAppConfiguration = "originating MCP tool is disabled by app configuration"

/** The default `requestMetaKey` library option. */
export const defaultRequestMetaKey = "x-codex-turn-metadata"

/** Library options of the call-scoped read. */
export interface Options {
  /** The request `_meta` key of the app scope; default `x-codex-turn-metadata`. */
  readonly requestMetaKey?: string
}

/** What to read: the thread, the originating call and the resource uri. */
export interface ReadForCallParams {
  readonly threadId: string
  readonly callId: string
  readonly uri: string
}

/** The request `_meta` of a call-scoped read: `{"threadId":…,"<key>":{"mcp_request_meta":{"selected_connector_ids":[…],"link_id":…}}}`. */
export const callScopedMeta = (
  threadId: string,
  connectorId: string,
  linkId: string | undefined,
  options: Options = {}
): ResourceClient.RequestMeta => ({
  threadId,
  [options.requestMetaKey ?? defaultRequestMetaKey]: {
    mcp_request_meta: { selected_connector_ids: [connectorId], link_id: linkId ?? null }
  }
})

/** The `_meta` of a plain read with a client `connectorId`: `{"<key>":{"mcp_request_meta":{"selected_connector_ids":[connectorId]}}}`. */
export const plainReadMeta = (connectorId: string, options: Options = {}): ResourceClient.RequestMeta => ({
  [options.requestMetaKey ?? defaultRequestMetaKey]: { mcp_request_meta: { selected_connector_ids: [connectorId] } }
})

const deny = (message: string) => Effect.fail(new Errors.AccessError({ message }))

const field = (u: unknown, key: string): unknown => (isRecord(u) && Object.hasOwn(u, key) ? u[key] : undefined)

/**
 * Runs the nine checks in order and, when all pass, reads `uri` from the apps server with the origin's
 * scope; the result is the read's `contents`. Changes no state and records no event.
 */
export const readForCall: (
  params: ReadForCallParams,
  options?: Options
) => Effect.Effect<
  ReadonlyArray<Mcp.ResourceContents>,
  Errors.AccessError | Errors.TransportError | Errors.ServerError,
  OriginStore | ResourceClient.ResourceClient
> = Effect.fn("CallScopedRead.readForCall")(function* (params: ReadForCallParams, options: Options = {}) {
  const store = yield* OriginStore
  const client = yield* ResourceClient.ResourceClient
  // 1. The origin, from the thread's current state.
  const origin = yield* store.find(params.threadId, params.callId)
  // Hold the latest set for the whole read, so that a reload meanwhile does not close it under us.
  return yield* Effect.scoped(
    Effect.gen(function* () {
      const set = yield* client.acquire
      const apps = set.config.apps.serverName
      // 2. The apps server is enabled in the latest set and ready once its startup settled.
      if (!set.hasServer(apps)) return yield* deny(serverUnavailable(apps))
      const status = yield* set.awaitSettled(apps)
      if (Option.isNone(status) || status.value.status !== "ready") return yield* deny(serverUnavailable(apps))
      // 3, 4. The request matches the origin, whose account selection is unambiguous.
      if (origin.uri !== params.uri) return yield* deny(resourceMismatch)
      if (origin.ambiguousAccount) return yield* deny(ambiguousAccount)
      // 5. The tool is in the server's whole catalog (app-only and config-disabled tools included). A
      // catalog that cannot be consulted counts as a missing tool: the check's message is the result.
      const tool = yield* set.toolInfo(apps, origin.tool).pipe(
        Effect.tapError((error) => Effect.logDebug(`tool lookup failed: ${error.message}`)),
        Effect.orElseSucceed(() => Option.none<Mcp.Tool>())
      )
      if (Option.isNone(tool)) return yield* deny(toolUnavailable)
      const meta = tool.value._meta
      // 6, 7, 8. The tool's current app context still matches the origin's.
      if (field(meta, "connector_id") !== origin.connectorId) return yield* deny(connectorMismatch)
      const link = field(meta, "link_id")
      const currentLink = typeof link === "string" && link.trim() !== "" ? link : undefined
      if (currentLink !== origin.linkId) return yield* deny(linkMismatch)
      if (origin.linkId === undefined && field(field(meta, "_codex_apps"), "requires_explicit_link_id") === true) {
        return yield* deny(explicitLinkRequired)
      }
      // 9. The latest configuration enables the connector and the tool.
      if (!AppPolicy.isToolEnabled(set.config, origin.connectorId, origin.tool)) {
        return yield* deny(disabledByAppConfiguration)
      }
      const result = yield* set
        .readResource(apps, params.uri, callScopedMeta(params.threadId, origin.connectorId, origin.linkId, options))
        .pipe(
          // Only the read's own failures remain; on this path every failure is an access-level refusal
          // with its message chain, so a parameter failure is reported as such.
          Effect.catchTag("ParameterError", (error) => deny(error.message))
        )
      return result.contents
    })
  )
})
