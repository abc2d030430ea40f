/** `config/mcpServer/reload` (what it does: ConfigReload.ts), `mcpServer/list` and the notification `mcpServer/statusChanged`. */
import type { AppServer } from "@mcp-resources/protocol"
import { OAuth, ResourceClient, TokenStore } from "@mcp-resources/resource-client"
import { Effect, Layer, Option, Queue } from "effect"
import { Connections } from "../Connections.js"
import * as ConfigReload from "../ConfigReload.js"
import { method } from "../Method.js"

/** The config methods. */
export const configMethods = {
  "config/mcpServer/reload": method("config/mcpServer/reload", {
    run: () => Effect.as(ConfigReload.reload, {})
  }),
  "mcpServer/list": method("mcpServer/list", {
    run: () => serverList
  })
}

/** The `mcpServer/list` entries of `servers` (in-memory servers have none), each with its OAuth state. */
const entriesOf = (servers: ReadonlyArray<ResourceClient.ServerStatus>) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    const config = yield* client.config
    const store = yield* Effect.serviceOption(TokenStore.TokenStore)
    // HTTP servers show their OAuth state (`auth`); stdio servers have none
    const auth = new Map<string, OAuth.AuthState>()
    // and the scopes a scope step-up asked for (`requiredScopes`)
    const required = new Map<string, ReadonlyArray<string>>()
    // and how each ready server's changes are learnt (`changeDetection`)
    const detection = new Map<string, ResourceClient.ChangeDetection>()
    for (const s of servers) {
      const mode = client.changeDetection(s.name)
      if (mode !== undefined) detection.set(s.name, mode)
    }
    for (const s of servers) {
      const entry = config.mcpServers.find((candidate) => candidate.name === s.name)
      if (entry === undefined || entry.transport._tag !== "http") continue
      const state = Option.isSome(store)
        ? yield* OAuth.authState(entry, s.error).pipe(Effect.provideService(TokenStore.TokenStore, store.value))
        : s.error === undefined
          ? "none"
          : yield* OAuth.authState(entry, s.error).pipe(Effect.provide(TokenStore.layerMemory))
      auth.set(s.name, state)
      if (Option.isSome(store)) {
        const scopes = yield* OAuth.requiredScopes(entry).pipe(
          Effect.provideService(TokenStore.TokenStore, store.value)
        )
        if (scopes.length > 0) required.set(s.name, scopes)
      }
    }
    return servers.flatMap((s) =>
      s.transport === "memory"
        ? []
        : [
            {
              name: s.name,
              status: s.status,
              transport: s.transport,
              ...(s.httpTransport !== undefined ? { httpTransport: s.httpTransport } : {}),
              ...(s.error !== undefined ? { error: s.error } : {}),
              ...(s.protocolVersion !== undefined ? { protocolVersion: s.protocolVersion } : {}),
              ...(s.reconnectAttempt !== undefined ? { reconnectAttempt: s.reconnectAttempt } : {}),
              ...(detection.has(s.name) ? { changeDetection: detection.get(s.name)! } : {}),
              ...(auth.has(s.name) ? { auth: auth.get(s.name)! } : {}),
              ...(required.has(s.name) ? { requiredScopes: required.get(s.name)! } : {})
            }
          ]
    )
  })

/** The `mcpServer/list` result: the latest set's servers, sorted by name. */
export const serverList = Effect.flatMap(
  Effect.flatMap(ResourceClient.ResourceClient, (client) => client.servers),
  (servers) => Effect.map(entriesOf(servers), (entries) => ({ servers: entries }))
)

const statusChanged = "mcpServer/statusChanged" satisfies AppServer.NotificationMethod

/**
 * Every change of a configured server's status (`ResourceClient.statusChanges`: starting, ready,
 * failed, disabled, a reconnection attempt, also through a reload) goes to every initialized
 * connection as `mcpServer/statusChanged`, with the server's `mcpServer/list` entry.
 */
export const statusChangedLayer: Layer.Layer<never, never, ResourceClient.ResourceClient | Connections> =
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const connections = yield* Connections
      const changes = yield* (yield* ResourceClient.ResourceClient).statusChanges
      const announce = (changed: ResourceClient.ServerStatus) =>
        Effect.gen(function* () {
          const [entry] = yield* entriesOf([changed])
          if (entry === undefined) return
          const ids = yield* connections.initialized
          yield* connections.notify(
            ids,
            statusChanged,
            entry satisfies typeof AppServer.McpServerStatusChangedNotification.Type
          )
        }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("mcpServer/statusChanged not sent", cause)))
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(changes), announce)))
    })
  )
