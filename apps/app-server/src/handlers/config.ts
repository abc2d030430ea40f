/** `config/mcpServer/reload` and `mcpServer/list`. */
import { Config } from "@mcp-resources/protocol"
import { OAuth, ResourceClient, ServerEntry, TokenStore } from "@mcp-resources/resource-client"
import { Effect, Option } from "effect"
import { AppOptions } from "../AppOptions.js"
import * as ConfigFile from "../ConfigFile.js"
import { method } from "../Method.js"
import { ResourceSubscriptions } from "../ResourceSubscriptions.js"

/** Reads the config file the server was started with (the empty config when there is none). */
export const loadConfig = (path: string | undefined): Effect.Effect<Config.Config, Config.ConfigError> =>
  path === undefined ? Effect.succeed(Config.empty) : ConfigFile.load(path)

/** The config methods. */
export const configMethods = {
  "config/mcpServer/reload": method("config/mcpServer/reload", {
    run: () =>
      Effect.gen(function* () {
        const options = yield* AppOptions
        const client = yield* ResourceClient.ResourceClient
        const config = yield* loadConfig(options.configPath)
        yield* client.reload(ServerEntry.fromConfig(config))
        // the threads' resource subscriptions move to the new set
        yield* (yield* ResourceSubscriptions).follow
        yield* Effect.logInfo("config reloaded").pipe(Effect.annotateLogs({ generation: yield* client.generation }))
        return {}
      })
  }),
  "mcpServer/list": method("mcpServer/list", {
    run: () =>
      Effect.gen(function* () {
        const client = yield* ResourceClient.ResourceClient
        const servers = yield* client.servers
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
        return {
          servers: servers.flatMap((s) =>
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
        }
      })
  })
}
