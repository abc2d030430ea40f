/**
 * `mcp-resources watch SERVER URI`: subscribes to one resource (`resources/subscribe`, or the
 * 2026-07-28 listen stream) and prints a line for each change the server announces, until SIGINT or
 * SIGTERM; then it unsubscribes, closes the server and exits 0. A server that declares no subscriptions
 * is watched by polling (`mcp_servers.NAME.poll_changes_sec`, docs/templates-and-changes.md); one
 * with polling off as well is refused with a message.
 */
import type { Config } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Clock, Console, Deferred, Effect, Exit, Queue } from "effect"
import type { Command } from "../CliCommands.js"
import { clientLayer, setupFor } from "./setup.js"

/** The `watch` command. */
export type WatchCommand = Extract<Command, { _tag: "watch" }>

/** The readable line of one change: `TIME  SERVER  URI  changed`. */
export const changeLine = (change: { server: string; uri: string; changedAt: string }): string =>
  `${change.changedAt}  ${change.server}  ${change.uri}  changed`

/** The poll interval of `server` in seconds (`poll_changes_sec`, 60 when not set). */
const pollSeconds = (config: Config.Config, server: string): number =>
  config.mcpServers.find((entry) => entry.name === server)?.pollChangesSec ?? 60

/** Completes when the process gets SIGINT or SIGTERM (the handlers are removed with the scope). */
const stopSignal = Effect.gen(function* () {
  const stop = yield* Deferred.make<void>()
  const onSignal = () => Deferred.unsafeDone(stop, Exit.void)
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.once("SIGINT", onSignal)
      process.once("SIGTERM", onSignal)
    }),
    () =>
      Effect.sync(() => {
        process.off("SIGINT", onSignal)
        process.off("SIGTERM", onSignal)
      })
  )
  return Deferred.await(stop)
})

/** Runs `watch`; its exit code. */
export const run = (command: WatchCommand, config: Config.Config) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { server, uri } = command
      const stopped = yield* stopSignal
      const client = yield* ResourceClient.ResourceClient
      // subscribed to the updates before the resource, so that no change falls between the two
      const updates = yield* client.updates
      const set = yield* client.acquire
      const outcome = yield* Effect.either(set.subscribe(server, uri))
      if (outcome._tag === "Left") {
        yield* Console.error(
          `mcp-resources: could not subscribe to ${uri} of MCP server '${server}': ${outcome.left.message}`
        )
        return 1
      }
      if (outcome.right === "unsupported") {
        yield* Console.error(
          `mcp-resources: MCP server '${server}' does not offer resource subscriptions (resources.subscribe) and is not polled (mcp_servers.${server}.poll_changes_sec = 0), so it cannot tell of changes to ${uri}`
        )
        return 1
      }
      yield* Effect.addFinalizer(() => set.unsubscribe(server, uri))
      const polled = client.changeDetection(server) === "poll"
      yield* Console.error(
        `watching ${uri} of MCP server '${server}'${polled ? ` by polling every ${pollSeconds(config, server)} s` : ""}; stop with Ctrl-C`
      )
      const changes = Effect.forever(
        Effect.flatMap(Queue.take(updates), (update) =>
          update._tag !== "updated" || update.server !== server || update.uri !== uri
            ? Effect.void
            : Effect.flatMap(Clock.currentTimeMillis, (now) => {
                const change = { server, uri, changedAt: new Date(now).toISOString() }
                return Console.log(command.json ? JSON.stringify(change) : changeLine(change))
              })
        )
      )
      yield* Effect.raceFirst(changes, stopped)
      return 0
    })
  ).pipe(Effect.provide(clientLayer(setupFor(config, command.server), command.dataDir)))
