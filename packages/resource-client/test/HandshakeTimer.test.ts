/**
 * The start-up handshake, its era probe (`server/discover` before `initialize`) and the 2026-07-28
 * `subscriptions/listen` acknowledgement are bounded by the request path's one timer on the current
 * `Clock` (the SDK's own timers off): a TestClock drives them.
 * The bounds are minutes long, so that a timer of the SDK's (real time) would leave each case waiting
 * past the test's own timeout; the awaited messages are bounded by that timeout too.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Config, Messages } from "@mcp-resources/protocol"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { Deferred, Effect, Either, Fiber, Runtime, TestClock } from "effect"
import { open } from "../src/internal/connection.js"
import { McpTransport, type ServerEntry } from "../src/index.js"
import { connectContractInMemory } from "./utils/contractServer.mjs"

const entry = (
  connect: () => Promise<Transport>,
  protocolVersion?: Config.ProtocolVersionSetting
): ServerEntry.ServerEntry => ({
  name: "s",
  transport: { _tag: "memory", connect },
  enabled: true,
  startupTimeoutSec: 600,
  toolTimeoutSec: 60,
  maxMessageBytes: 1024 * 1024,
  ...(protocolVersion === undefined ? {} : { protocolVersion })
})

const methodOf = (message: JSONRPCMessage): string | undefined =>
  "method" in message && typeof message.method === "string" ? message.method : undefined

describe("handshake and listen timers", () => {
  it.scoped("a server that never answers initialize fails the handshake once its bound passed on the clock", () =>
    Effect.gen(function* () {
      const sent = yield* Deferred.make<void>()
      const resolve = Runtime.runSync(yield* Effect.runtime<never>())
      // a transport that takes every message and answers none
      const silent = async (): Promise<Transport> => {
        const transport: Transport = {
          start: async () => {},
          send: async (message) => {
            if (methodOf(message) === "initialize") resolve(Deferred.succeed(sent, undefined))
          },
          close: async () => transport.onclose?.()
        }
        return transport
      }
      const transports = yield* McpTransport.McpTransport
      const opening = yield* Effect.fork(
        Effect.either(open(entry(silent, "legacy"), { timeoutMillis: 600_000, transports }))
      )
      yield* Deferred.await(sent)
      // the caller's startup timeout comes first; this bound (a second later) is what is left without it
      yield* TestClock.adjust("600999 millis")
      assert.isTrue((yield* Fiber.poll(opening))._tag === "None")
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(opening)
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left._tag, "TransportError")
        assert.strictEqual(result.left.message, Messages.timedOutAwaiting("initialize", 600_000))
      }
    }).pipe(Effect.provide(McpTransport.layerMemory))
  )

  it.scoped(
    "a stdio-like server that never answers the era probe falls back to initialize at its bound on the clock",
    () =>
      Effect.gen(function* () {
        const fixture = yield* Effect.acquireRelease(
          Effect.sync(() => connectContractInMemory("legacy")),
          (opened) => Effect.promise(() => opened.close())
        )
        const probeSent = yield* Deferred.make<void>()
        const resolve = Runtime.runSync(yield* Effect.runtime<never>())
        const methods: Array<string | undefined> = []
        // the server's side never sees the probe; `stderr` and `pid` make the SDK take the transport
        // for stdio, where a silent probe means an older server
        const silentProbe = async (): Promise<Transport> => {
          const transport = await fixture.connect()
          const send = transport.send.bind(transport)
          transport.send = async (message, options) => {
            methods.push(methodOf(message))
            if (methodOf(message) !== "server/discover") return send(message, options)
            resolve(Deferred.succeed(probeSent, undefined))
          }
          return Object.assign(transport, { stderr: null, pid: 1 })
        }
        const transports = yield* McpTransport.McpTransport
        const opening = yield* Effect.fork(open(entry(silentProbe), { timeoutMillis: 600_000, transports }))
        yield* Deferred.await(probeSent)
        // half the start-up timeout
        yield* TestClock.adjust("299999 millis")
        assert.isTrue((yield* Fiber.poll(opening))._tag === "None")
        assert.deepStrictEqual(methods, ["server/discover"])
        yield* TestClock.adjust("1 millis")
        const connection = yield* Fiber.join(opening)
        assert.strictEqual(connection.era, "legacy")
        assert.deepStrictEqual(methods.slice(0, 2), ["server/discover", "initialize"])
      }).pipe(Effect.provide(McpTransport.layerMemory))
  )

  it.scoped("any other server that never answers the era probe fails the start-up at its bound on the clock", () =>
    Effect.gen(function* () {
      const probeSent = yield* Deferred.make<void>()
      const resolve = Runtime.runSync(yield* Effect.runtime<never>())
      const silent = async (): Promise<Transport> => {
        const transport: Transport = {
          start: async () => {},
          send: async (message) => {
            if (methodOf(message) === "server/discover") resolve(Deferred.succeed(probeSent, undefined))
          },
          close: async () => transport.onclose?.()
        }
        return transport
      }
      const transports = yield* McpTransport.McpTransport
      const opening = yield* Effect.fork(Effect.either(open(entry(silent), { timeoutMillis: 600_000, transports })))
      yield* Deferred.await(probeSent)
      yield* TestClock.adjust("299999 millis")
      assert.isTrue((yield* Fiber.poll(opening))._tag === "None")
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(opening)
      assert.deepStrictEqual(
        Either.mapLeft(result, (error) => [error._tag, error.message]),
        Either.left(["TransportError", Messages.timedOutAwaiting("initialize", 600_000)])
      )
    }).pipe(Effect.provide(McpTransport.layerMemory))
  )

  it.scoped("a listen stream the server never acknowledges fails after the request timeout on the clock", () =>
    Effect.gen(function* () {
      const fixture = yield* Effect.acquireRelease(
        Effect.sync(() => connectContractInMemory("modern")),
        (opened) => Effect.promise(() => opened.close())
      )
      const listenSent = yield* Deferred.make<void>()
      const resolve = Runtime.runSync(yield* Effect.runtime<never>())
      // the server's side never sees the listen request: no acknowledgement comes
      const dropListen = async (): Promise<Transport> => {
        const transport = await fixture.connect()
        const send = transport.send.bind(transport)
        transport.send = async (message, options) => {
          if (methodOf(message) !== "subscriptions/listen") return send(message, options)
          resolve(Deferred.succeed(listenSent, undefined))
        }
        return transport
      }
      const transports = yield* McpTransport.McpTransport
      const connection = yield* open(entry(dropListen), { timeoutMillis: 600_000, transports })
      assert.strictEqual(connection.era, "modern")
      const listening = yield* Effect.fork(Effect.either(connection.listen(["contract://text"], 300_000)))
      yield* Deferred.await(listenSent)
      yield* TestClock.adjust("299999 millis")
      assert.isTrue((yield* Fiber.poll(listening))._tag === "None")
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(listening)
      assert.deepStrictEqual(
        Either.mapLeft(result, (error) => error.message),
        Either.left("subscriptions/listen failed: subscriptions/listen ack timed out")
      )
    }).pipe(Effect.provide(McpTransport.layerMemory))
  )
  it.scoped("a listen made where the caller cannot be interrupted returns once acknowledged, its timer let go", () =>
    Effect.gen(function* () {
      const fixture = yield* Effect.acquireRelease(
        Effect.sync(() => connectContractInMemory("modern")),
        (opened) => Effect.promise(() => opened.close())
      )
      const transports = yield* McpTransport.McpTransport
      const connection = yield* open(entry(fixture.connect), { timeoutMillis: 600_000, transports })
      // as a subscription book's lock or a set's publish runs it: a bound raced in a fiber of its own
      // would wait there for its timer (never, on this clock) before returning
      const result = yield* Effect.either(Effect.uninterruptible(connection.listen(["contract://text"], 300_000)))
      assert.isTrue(Either.isRight(result))
    }).pipe(Effect.provide(McpTransport.layerMemory))
  )
})
