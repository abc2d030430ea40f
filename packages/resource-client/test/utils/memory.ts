/** Helpers for in-memory fixture servers: scoped fixtures, connection tracking and setups. */
import { connectInMemory, type FixtureSpec, type InMemoryFixture } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Effect } from "effect"
import { ServerEntry } from "../../src/index.js"

/** A fixture plus counters of the client transports it handed out. */
export interface Tracked extends InMemoryFixture {
  readonly stats: { opened: number; closed: number; inFlight: number; maxInFlight: number }
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
  const pending = new Set<unknown>()
  const connect = async (): Promise<Transport> => {
    const transport = await fixture.connect()
    stats.opened += 1
    const send = transport.send.bind(transport)
    const close = transport.close.bind(transport)
    let closed = false
    transport.send = (message, options) => {
      if (isRequest(message) && (message as { method: string }).method !== "initialize") {
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
      await close()
    }
    const start = transport.start.bind(transport)
    transport.start = async () => {
      const onmessage = transport.onmessage
      transport.onmessage = (message, extra) => {
        if (isResponse(message) && (message as { id: unknown }).id !== 0) {
          stats.inFlight -= 1
          const id = (message as { id: unknown }).id
          if (overlap !== undefined && pending.delete(id)) overlap.inFlight -= 1
        }
        onmessage?.(message, extra)
      }
      await start()
    }
    return transport
  }
  return Object.assign(Object.create(null), fixture, { connect, stats }) as Tracked
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
