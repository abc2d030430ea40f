/** `mcp/resource/read` (alias `mcpServer/resource/read`): plain, call-scoped and threadless reads. No items, no history. */
import { ResourceClient, type ServerRequests } from "@mcp-resources/resource-client"
import { CallScopedRead, OriginStore } from "@mcp-resources/resource-origins"
import { Context, Effect } from "effect"
import { type AppServer, type Errors, ResourcePolicy } from "@mcp-resources/protocol"
import { methodInContext } from "../internal/fastPaths.js"
import { invalidRequest, messages } from "../Method.js"
import type { Connection } from "../Connections.js"
import { Threads } from "../Threads.js"

/**
 * The resource rules before any request (docs/policy.md, `ResourcePolicy.guardRead`): a denied URI is
 * refused with the same message whether or not it exists; a thread's deny rules apply to reads on that thread.
 */
const policed = <A, E, R>(
  client: ResourceClient.Service,
  p: ReadParams,
  threadDeny: ReadonlyArray<string> | undefined,
  read: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Errors.AccessError, R> =>
  Effect.flatMap(client.config, (config) =>
    Effect.zipRight(ResourcePolicy.guardRead({ config, threadDeny }, p.server, p.uri), read)
  )

/** The result of a read. */
const answer = <C>(contents: C, originCallId: string | null) => ({ contents, originCallId })

/** A threadless read: straight to the server, no thread, no items. */
const readWithoutThread = (client: ResourceClient.Service, p: ReadParams, connectorId: string | null) =>
  Effect.map(
    client.withServerConnection(p.server, (server) =>
      connectorId === null
        ? server.readResource(p.uri)
        : server.readResource(p.uri, CallScopedRead.plainReadMeta(connectorId))
    ),
    (result) => answer(result.contents, null)
  )

/** A plain read of the latest set (the `_meta` of an apps-server connector when given). */
const plainRead = (client: ResourceClient.Service, p: ReadParams, connectorId: string | null) =>
  Effect.map(
    connectorId === null
      ? client.readResource(p.server, p.uri)
      : client.readResource(p.server, p.uri, CallScopedRead.plainReadMeta(connectorId)),
    (result) => answer(result.contents, null)
  )

/** A read on a thread: the thread must exist; a call-scoped read of the apps server goes to the call's origin. */
const readOnThread = (
  client: ResourceClient.Service,
  threads: Threads["Type"],
  origins: OriginStore.Service,
  p: ReadParams,
  connection: Connection,
  threadId: string,
  originCallId: string | null,
  connectorId: string | null
) =>
  Effect.flatMap(threads.get(connection, threadId), (thread) => {
    const deny = thread.config.resources?.deny
    // without an origin call id the read is plain whatever the server: no need for the config; an
    // elicitation it causes goes to a client of the thread (Elicitation.ts): the request runs in the
    // thread's context (`plainReadContext` below)
    if (originCallId === null) return policed(client, p, deny, plainRead(client, p, connectorId))
    // a call acknowledged on another instance of a cluster is read through from the store first
    const readThrough = threads.readThrough(thread, Effect.isSuccess(origins.find(thread.id, originCallId)))
    return Effect.zipRight(
      readThrough,
      policed(
        client,
        p,
        deny,
        Effect.flatMap(client.config, (config) =>
          p.server === config.apps.serverName
            ? Effect.map(
                CallScopedRead.readForCall({ threadId: thread.id, callId: originCallId, uri: p.uri }),
                (contents) => answer(contents, originCallId)
              )
            : plainRead(client, p, connectorId)
        )
      )
    )
  })

type ReadParams = AppServer.Params<"mcp/resource/read">

/** The context of a plain read on a thread: the thread (an elicitation it causes goes to a client of the thread). */
const plainReadContext = (p: ReadParams): ServerRequests.RequestContext | undefined => {
  const threadId = p.threadId ?? null
  return threadId !== null && (p.originCallId ?? null) === null ? { threadId } : undefined
}

/** The read method under one of its two names. */
const read = (name: "mcp/resource/read" | "mcpServer/resource/read") =>
  // a plain read on a thread makes its MCP request in the thread's context
  methodInContext(name, plainReadContext, {
    run: (p, { connection }) =>
      // both services in one step, read from the request fiber's context
      Effect.contextWithEffect(
        (context: Context.Context<ResourceClient.ResourceClient | Threads | OriginStore.OriginStore>) => {
          const client = Context.get(context, ResourceClient.ResourceClient)
          const threadId = p.threadId ?? null
          const originCallId = p.originCallId ?? null
          const connectorId = p.connectorId ?? null
          if (threadId === null) {
            if (originCallId !== null) return Effect.fail(invalidRequest(messages.originCallIdRequiresThreadId))
            return policed(client, p, undefined, readWithoutThread(client, p, connectorId))
          }
          return readOnThread(
            client,
            Context.get(context, Threads),
            Context.get(context, OriginStore.OriginStore),
            p,
            connection,
            threadId,
            originCallId,
            connectorId
          )
        }
      )
  })

/** The resource methods. */
export const resourceMethods = {
  "mcp/resource/read": read("mcp/resource/read"),
  "mcpServer/resource/read": read("mcpServer/resource/read")
}
