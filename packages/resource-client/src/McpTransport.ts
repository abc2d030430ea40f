/**
 * How the resource client reaches a server: the SDK transport of each server entry, as a swappable
 * service. `layer` connects stdio child processes, streamable HTTP and legacy HTTP+SSE servers and
 * in-memory servers; `layerMemory` connects only in-memory servers (nothing is spawned, no socket is
 * opened), for tests and sandboxed hosts; a host can provide its own (a sandboxed spawner, a custom
 * socket).
 */
import { Errors } from "@mcp-resources/protocol"
import { Context, Effect, Layer, Option } from "effect"
import { makeTransport, type TransportFactory } from "./internal/connection.js"
import { ScopeChallenges } from "./ScopeChallenges.js"
import { TokenStore } from "./TokenStore.js"

/** Builds the (not yet started) SDK transport of an entry; `stderr` receives a stdio child's standard error. */
export interface Service extends TransportFactory {}

/** The McpTransport service tag. Layers: `layer` (every kind of entry), `layerMemory` (in-memory entries only). */
export class McpTransport extends Context.Tag("@mcp-resources/resource-client/McpTransport")<McpTransport, Service>() {}

/**
 * stdio child processes (command, args, env, cwd), streamable HTTP and HTTP+SSE (url, bearer token,
 * headers, OAuth) and in-memory entries. An HTTP server that asks for OAuth gets the tokens of the
 * `TokenStore` in the context when the layer is built; without one it fails with `authorization
 * required …`. A `ScopeChallenges` in the context hears of every `403 insufficient_scope` a login must
 * answer.
 */
export const layer: Layer.Layer<McpTransport> = Layer.effect(
  McpTransport,
  Effect.gen(function* () {
    const store = yield* Effect.serviceOption(TokenStore)
    const challenges = yield* Effect.serviceOption(ScopeChallenges)
    const runtime = yield* Effect.runtime<never>()
    const oauth = Option.map(store, (store) => ({
      store,
      runtime,
      ...(Option.isSome(challenges) ? { challenges: challenges.value } : {})
    }))
    return {
      make: (entry, stderr) => makeTransport(entry, stderr, Option.getOrUndefined(oauth))
    }
  })
)

/** In-memory entries only; a stdio or HTTP entry fails its startup with a message naming the layer. */
export const layerMemory: Layer.Layer<McpTransport> = Layer.succeed(McpTransport, {
  make: (entry, stderr) =>
    entry.transport._tag === "memory"
      ? makeTransport(entry, stderr)
      : Effect.fail(
          new Errors.TransportError({
            kind: "startup",
            message: `${entry.transport._tag} transports are not available (McpTransport.layerMemory connects in-memory servers only)`
          })
        )
})
