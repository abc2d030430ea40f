/** Helpers for in-memory fixture servers: scoped fixtures, connection tracking and setups. */
import { connectInMemory, type FixtureSpec, type InMemoryFixture, makeWatch } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import type { Transport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { ServerEntry } from "../../src/index.js"

/** A fixture plus counters of the client transports it handed out. */
export interface Tracked extends InMemoryFixture {
  readonly stats: { opened: number; closed: number; inFlight: number; maxInFlight: number }
  /** Resolves once `count` client transports have been closed (now or later); rejects after 10 s. */
  readonly awaitClosed: (count: number) => Promise<void>
}

const isRequest = (message: object) => "method" in message && "id" in message
const isResponse = (message: object) => !("method" in message) && "id" in message

/** Outstanding requests of one method across several fixtures. */
export interface Overlap {
  readonly method: string
  inFlight: number
  maxInFlight: number
}

/** Wraps `connect` so that opens, closes and concurrently outstanding requests are counted. */
const track = (fixture: InMemoryFixture, overlap?: Overlap): Tracked => {
  const stats = { opened: 0, closed: 0, inFlight: 0, maxInFlight: 0 }
  const watch = makeWatch()
  const pending = new Set<unknown>()
  const counted = new Set<unknown>()
  const connect = async (): Promise<Transport> => {
    const transport = await fixture.connect()
    stats.opened += 1
    const send = transport.send.bind(transport)
    const close = transport.close.bind(transport)
    let closed = false
    transport.send = (message, options) => {
      if (isRequest(message) && (message as { method: string }).method !== "initialize") {
        counted.add((message as { id: unknown }).id)
        stats.inFlight += 1
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight)
        if (overlap !== undefined && (message as { method: string }).method === overlap.method) {
          pending.add((message as { id: unknown }).id)
          overlap.inFlight += 1
          overlap.maxInFlight = Math.max(overlap.maxInFlight, overlap.inFlight)
        }
      }
      return send(message, options)
    }
    transport.close = async () => {
      if (!closed) stats.closed += 1
      closed = true
      watch.changed()
      await close()
    }
    // every handler installed on the transport (the SDK may install its own more than once) is counted
    let receive: Transport["onmessage"]
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      enumerable: true,
      get: () => receive,
      set: (handler: Transport["onmessage"]) => {
        receive =
          handler === undefined
            ? undefined
            : (message, extra) => {
                if (isResponse(message) && (message as { id: unknown }).id !== 0) {
                  const id = (message as { id: unknown }).id
                  if (pending.delete(id)) overlap!.inFlight -= 1
                  if (counted.delete(id)) stats.inFlight -= 1
                }
                handler(message, extra)
              }
      }
    })
    return transport
  }
  const awaitClosed = (count: number) =>
    watch.until(() => stats.closed >= count, `${count} closed connection(s) (${stats.closed} so far)`)
  return Object.assign(Object.create(null), fixture, { connect, stats, awaitClosed }) as Tracked
}

/** An in-memory fixture closed with the test's scope. */
export const fixture = (spec: FixtureSpec, overlap?: Overlap) =>
  Effect.acquireRelease(
    Effect.sync(() => track(connectInMemory(spec), overlap)),
    (f) => Effect.promise(() => f.closeAll())
  )

/** A setup of the empty config with these entries. */
export const setupOf = (servers: ReadonlyArray<ServerEntry.ServerEntry>): ServerEntry.Setup => ({
  config: Config.empty,
  servers
})

/** An in-memory entry over a fixture. */
export const entry = (
  name: string,
  f: { readonly connect: () => Promise<Transport> },
  options: Partial<Omit<ServerEntry.ServerEntry, "name" | "transport">> = {}
) => ServerEntry.memory(name, f.connect, options)

/** One resource `{uri, name}`. */
export const resource = (uri: string, name: string) => ({ uri, name })
