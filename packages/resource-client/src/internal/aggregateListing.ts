/**
 * The aggregate listing of a connection set (resource-tools.md 1.4): every ready server passing a
 * filter, each fully paginated under the guard on a fiber of its own, gathered in bytewise order of
 * name with each server's failure beside the others' items. Never fails.
 */
import { type Errors, Messages } from "@mcp-resources/protocol"
import { Effect, Fiber, Option } from "effect"
import * as Pagination from "../Pagination.js"
import type { AggregateResult } from "./types.js"
import { compareBytewise } from "@mcp-resources/protocol/Utf8"
import type { ServerEntry } from "../ServerEntry.js"
import type { Connection } from "./connection.js"
import * as Server from "./server.js"

/** The servers of `handles` passing `include`, every one fully paginated with `fetch`. */
export const aggregate = <A>(
  handles: ReadonlyMap<string, Server.Handle>,
  include: (server: string) => boolean,
  method: "resources/list" | "resources/templates/list",
  /** One page, its request bounded by `remainingMillis` (what is left of the server's deadline). */
  fetch: (
    connection: Connection,
    entry: ServerEntry,
    cursor: string | undefined,
    remainingMillis: number
  ) => Effect.Effect<Pagination.Page<A>, Errors.ResourceFailure>
): Effect.Effect<AggregateResult<A>> =>
  Effect.gen(function* () {
    const names = [...handles.keys()].filter((name) => include(name)).sort(compareBytewise)
    type Outcome = Option.Option<
      | { readonly server: string; readonly items: ReadonlyArray<A> }
      | { readonly server: string; readonly error: string }
    >
    // a ready server's pages on a fiber of its own, every fiber awaited in order: lighter than a
    // concurrent forEach, and enough here: an outcome never fails, and a fiber forked here is
    // interrupted with this one (an interrupted listing leaves no walk behind)
    const running = yield* Effect.forEach(names, (name): Effect.Effect<Outcome | Fiber.RuntimeFiber<Outcome>> => {
      const handle = handles.get(name)!
      const state = handle.state
      if (state._tag === "failed") {
        return Effect.succeed<Outcome>(Option.some({ server: name, error: Messages.failedToGetClient(state.error) }))
      }
      if (state._tag !== "ready") return Effect.succeed<Outcome>(Option.none())
      return Effect.fork(
        Pagination.collectPaginated({
          method,
          timeout: Server.millis(handle.entry.toolTimeoutSec),
          pagesBounded: true,
          fetchPage: (cursor, remainingMillis) => fetch(state.connection, handle.entry, cursor, remainingMillis)
        }).pipe(
          Effect.match({
            onFailure: (error): Outcome => Option.some({ server: name, error: error.message }),
            onSuccess: (items): Outcome => Option.some({ server: name, items })
          })
        )
      )
    })
    const outcomes = yield* Effect.forEach(running, (outcome) =>
      Option.isOption(outcome) ? Effect.succeed(outcome) : Effect.flatten(Fiber.await(outcome))
    )
    const servers: Array<{ readonly server: string; readonly items: ReadonlyArray<A> }> = []
    const failures: Array<{ readonly server: string; readonly error: string }> = []
    for (const outcome of outcomes) {
      if (Option.isNone(outcome)) continue
      const value = outcome.value
      if ("items" in value) servers.push(value)
      else {
        failures.push(value)
        yield* Effect.logWarning(
          method === "resources/list"
            ? Messages.aggregateLog.resources(value.server, value.error)
            : Messages.aggregateLog.templates(value.server, value.error)
        )
      }
    }
    return { servers, failures }
  })
