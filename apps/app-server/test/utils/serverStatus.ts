/**
 * Waiting for the app-server's MCP servers without polling, in either harness (a process:
 * `AppServerProcess.ts`, in process: `InProcess.ts`): read `mcpServer/list`, and while it does not
 * show what is awaited, await the next `mcpServer/statusChanged` sent after that read was asked for
 * (a change during the read is announced after it), then read again. Each wait has the harness's timeout.
 */
import { Effect } from "effect"

/** What a harness gives: the messages it received, in order, a list request and a bounded wait for a message. */
export interface StatusSource<E> {
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly list: Effect.Effect<Array<Record<string, unknown>>, E>
  readonly awaitMessage: (
    predicate: (message: Record<string, unknown>) => boolean,
    what: string
  ) => Effect.Effect<unknown, E>
}

/** The `mcpServer/list` entries once `done` holds for them. */
export const waitServers = <E>(
  source: StatusSource<E>,
  done: (servers: Array<Record<string, unknown>>) => boolean,
  what: string
): Effect.Effect<Array<Record<string, unknown>>, E> =>
  Effect.gen(function* () {
    for (;;) {
      const from = source.messages.length
      const servers = yield* source.list
      if (done(servers)) return servers
      yield* source.awaitMessage(
        (m) => m.method === "mcpServer/statusChanged" && source.messages.indexOf(m) >= from,
        `mcpServer/statusChanged while waiting for ${what}`
      )
    }
  })

/** No server is `starting` (aggregate lists never wait for startup). */
export const noneStarting = (servers: Array<Record<string, unknown>>): boolean =>
  servers.every((s) => s.status !== "starting")
