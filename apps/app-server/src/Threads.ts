/**
 * The loaded threads: their binding lease (resource-tools.md 1.3), history of turns and call ids, origin
 * state, store sequence and subscribed connections. Every event is appended to the thread's store
 * (durable) before the notification that follows from it is sent; records another process appended
 * are applied first.
 */
import type { ThreadEvent } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { Skills } from "@mcp-resources/skills"
import { ThreadStore } from "@mcp-resources/thread-store"
import type { ToolHandlers } from "@mcp-resources/tool-handlers"
import { Clock, Context, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import { randomUUID } from "node:crypto"
import type { Connection } from "./Connections.js"
import { Connections } from "./Connections.js"
import { ThreadConfig } from "./internal/params.js"
import { type RpcError, threadNotFound } from "./Method.js"

/** A thread's binding: the set it holds and the scope that holds it (closing the scope lets the set go). */
interface Binding {
  readonly scope: Scope.CloseableScope
  readonly set: ResourceClient.ConnectionSet
}

interface HistoryTurn {
  readonly turnId: string
  readonly callIds: Set<string>
}

/** One loaded thread. Owned by the {@link Threads} service; handlers read it and go through the service to change it. */
export interface Thread {
  readonly id: string
  readonly ephemeral: boolean
  readonly createdAt: string
  /** The thread's config override from `thread/start`. */
  readonly config: ThreadConfig
}

interface LoadedThread extends Thread {
  readonly store: ThreadStore.Service
  readonly lock: Effect.Semaphore
  readonly subscribers: Set<number>
  readonly history: Array<HistoryTurn>
  lastSeq: number
  binding: Binding | undefined
}

/** A row of `thread/list`. */
export interface ThreadSummary {
  readonly id: string
  readonly ephemeral: boolean
  readonly createdAt: string
}

/** The operations on threads. */
export interface Service {
  /** Creates a thread (persistent ones are stored first) and subscribes the connection. */
  readonly start: (
    connection: Connection,
    options: { readonly ephemeral: boolean; readonly config: ThreadConfig }
  ) => Effect.Effect<Thread, ThreadStore.ThreadStoreError>
  /** Loads a stored thread (rebuilding its origin state) or returns the loaded one, and subscribes the connection. */
  readonly resume: (connection: Connection, threadId: string) => Effect.Effect<Thread, unknown>
  /** The loaded thread, loading a stored one on first use (the connection is then subscribed); else `thread not found`. */
  readonly get: (connection: Connection, threadId: string) => Effect.Effect<Thread, unknown>
  /** Loaded ephemeral threads and every stored thread, newest first. */
  readonly list: Effect.Effect<ReadonlyArray<ThreadSummary>, ThreadStore.ThreadStoreError>
  /** Unloads and removes the thread and all its records. */
  readonly remove: (threadId: string) => Effect.Effect<void, unknown>
  /**
   * Applies what another process appended since this one last looked. A thread another process deleted
   * is unloaded and fails with `thread not found`.
   */
  readonly refresh: (thread: Thread) => Effect.Effect<void, ThreadStore.ThreadStoreError | RpcError>
  /** Appends the event durably, applies it, then sends the notification to the thread's subscribers (`thread not found` as in `refresh`). */
  readonly record: (
    thread: Thread,
    event: ThreadEvent.ThreadEvent,
    notification?: { readonly method: string; readonly params: unknown }
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | RpcError>
  /** The turn is in the thread's current history (started and not rolled back). */
  readonly hasTurn: (thread: Thread, turnId: string) => boolean
  /** The call id produced items in the thread's current history. */
  readonly hasCall: (thread: Thread, callId: string) => boolean
  /** Holds the latest set as the thread's binding, releasing the previous one (at `turn/start`). */
  readonly rebind: (thread: Thread) => Effect.Effect<void>
  /** Runs `use` with the thread's tool context: its binding (or the latest set before its first turn) and the latest config. */
  readonly withToolContext: <A, E, R>(
    thread: Thread,
    use: (context: ToolHandlers.ToolContext) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
}

/** The Threads tag. Layer: `layer`. */
export class Threads extends Context.Tag("@mcp-resources/app-server/Threads")<Threads, Service>() {}

const decodeConfig = Schema.decodeUnknownOption(ThreadConfig)
const lastTurn = (thread: LoadedThread, turnId: unknown): HistoryTurn | undefined => {
  for (let i = thread.history.length - 1; i >= 0; i--)
    if (thread.history[i]!.turnId === turnId) return thread.history[i]
  return undefined
}

/** Builds the service over the configured store (persistent threads) and a memory store (ephemeral threads). */
export const make = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const origins = yield* OriginStore.OriginStore
  const skills = yield* Skills.Skills
  const durable = yield* ThreadStore.ThreadStore
  const connections = yield* Connections
  const ephemeralStore = Context.get(yield* Layer.build(ThreadStore.layerMemory), ThreadStore.ThreadStore)
  const loaded = new Map<string, LoadedThread>()
  const loading = yield* Effect.makeSemaphore(1)

  // Every Thread handed out is one of ours.
  const internal = (thread: Thread): LoadedThread => thread as LoadedThread

  const apply = (thread: LoadedThread, event: ThreadEvent.ThreadEvent) => {
    switch (event._tag) {
      case "turnStarted":
        if (thread.history.at(-1)?.turnId !== event.turnId)
          thread.history.push({ turnId: event.turnId, callIds: new Set() })
        break
      case "itemStarted":
      case "itemCompleted": {
        const turn = lastTurn(thread, event.turnId)
        turn?.callIds.add(event.item.id)
        break
      }
      case "threadRolledBack":
        thread.history.splice(Math.max(0, thread.history.length - event.numTurns))
        break
      case "compacted":
      case "toolCallEnded":
        break
    }
  }

  const observe = (thread: LoadedThread, event: ThreadEvent.ThreadEvent) =>
    Effect.zipRight(
      Effect.sync(() => apply(thread, event)),
      origins.observe(thread.id, event)
    )

  const catchUp = (thread: LoadedThread) =>
    Effect.gen(function* () {
      if (thread.ephemeral) return
      const records = yield* thread.store.since(thread.id, thread.lastSeq)
      for (const record of records) {
        yield* observe(thread, record.event)
        thread.lastSeq = record.seq
      }
    })

  const load = (connection: Connection, threadId: string) =>
    loading.withPermits(1)(
      Effect.gen(function* () {
        const existing = loaded.get(threadId)
        if (existing !== undefined) {
          existing.subscribers.add(connection.id)
          return existing
        }
        const info = yield* durable.get(threadId)
        if (Option.isNone(info)) return yield* Effect.fail(threadNotFound(threadId))
        // The whole record list, in one query: the turn and call-id history that `tool/call` checks
        // reaches back past compactions, while the origin state is rebuilt from the newest
        // compaction's checkpoint and the records after it (OriginState.rebuild finds it).
        const records = yield* durable.since(threadId, 0)
        const thread: LoadedThread = {
          id: threadId,
          ephemeral: false,
          createdAt: info.value.createdAt,
          config: Option.getOrElse(decodeConfig(info.value.config ?? {}), () => ({})),
          store: durable,
          lock: yield* Effect.makeSemaphore(1),
          subscribers: new Set([connection.id]),
          history: [],
          lastSeq: records.at(-1)?.seq ?? 0,
          binding: undefined
        }
        const events = records.map((r) => r.event)
        for (const event of events) apply(thread, event)
        yield* origins.load(threadId, events)
        loaded.set(threadId, thread)
        yield* Effect.logInfo("thread loaded").pipe(Effect.annotateLogs({ threadId, records: events.length }))
        return thread
      })
    )

  const start: Service["start"] = (connection, options) =>
    Effect.gen(function* () {
      const id = randomUUID()
      const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      const store = options.ephemeral ? ephemeralStore : durable
      yield* store.create({ id, createdAt, config: options.config })
      const thread: LoadedThread = {
        id,
        ephemeral: options.ephemeral,
        createdAt,
        config: options.config,
        store,
        lock: yield* Effect.makeSemaphore(1),
        subscribers: new Set([connection.id]),
        history: [],
        lastSeq: 0,
        binding: undefined
      }
      loaded.set(id, thread)
      yield* origins.load(id, [])
      return thread
    })

  const get: Service["get"] = (connection, threadId) =>
    Effect.suspend(() => {
      const found = loaded.get(threadId)
      return found !== undefined ? Effect.succeed(found) : load(connection, threadId)
    })

  const list: Service["list"] = Effect.gen(function* () {
    const stored = yield* durable.list()
    const rows: Array<ThreadSummary> = stored.map((t) => ({ id: t.id, ephemeral: false, createdAt: t.createdAt }))
    for (const thread of loaded.values()) {
      if (thread.ephemeral) rows.push({ id: thread.id, ephemeral: true, createdAt: thread.createdAt })
    }
    return rows.sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
    )
  })

  const releaseBinding = (binding: Binding | undefined) =>
    binding === undefined ? Effect.void : Scope.close(binding.scope, Exit.void)

  const unload = (thread: LoadedThread) =>
    Effect.gen(function* () {
      loaded.delete(thread.id)
      const binding = thread.binding
      thread.binding = undefined
      yield* releaseBinding(binding)
      yield* origins.forget(thread.id)
      yield* skills.forget(thread.id)
    })

  const remove: Service["remove"] = (threadId) =>
    Effect.gen(function* () {
      const thread = loaded.get(threadId)
      if (thread !== undefined) {
        yield* thread.lock.withPermits(1)(unload(thread))
        if (thread.ephemeral) {
          yield* ephemeralStore.remove(threadId)
          return
        }
      }
      const removed = yield* durable.remove(threadId)
      if (!removed && thread === undefined) return yield* Effect.fail(threadNotFound(threadId))
    })

  // Another process sharing the store deleted the thread: stop serving it from memory (with the lock held).
  const whileStored =
    (t: LoadedThread) =>
    <A>(
      effect: Effect.Effect<A, ThreadStore.ThreadStoreError>
    ): Effect.Effect<A, ThreadStore.ThreadStoreError | RpcError> =>
      Effect.catchIf(
        effect,
        (error) => error.reason === "notFound",
        () => Effect.zipRight(loaded.get(t.id) === t ? unload(t) : Effect.void, Effect.fail(threadNotFound(t.id)))
      )

  const refresh: Service["refresh"] = (thread) =>
    Effect.suspend(() => {
      const t = internal(thread)
      return t.lock.withPermits(1)(whileStored(t)(catchUp(t)))
    })

  const record: Service["record"] = (thread, event, notification) =>
    Effect.suspend(() => {
      const t = internal(thread)
      return t.lock
        .withPermits(1)(
          Effect.gen(function* () {
            yield* whileStored(t)(catchUp(t))
            t.lastSeq = yield* whileStored(t)(t.store.append(t.id, t.lastSeq, event))
            yield* observe(t, event)
            if (notification !== undefined) {
              yield* connections.notify(t.subscribers, notification.method, notification.params)
            }
          })
        )
        .pipe(Effect.uninterruptible)
    })

  const hasTurn: Service["hasTurn"] = (thread, turnId) => internal(thread).history.some((t) => t.turnId === turnId)
  const hasCall: Service["hasCall"] = (thread, callId) => internal(thread).history.some((t) => t.callIds.has(callId))

  const rebind: Service["rebind"] = (thread) =>
    Effect.gen(function* () {
      const t = internal(thread)
      const scope = yield* Scope.make()
      const set = yield* Scope.extend(client.acquire, scope)
      const previous = t.binding
      t.binding = { scope, set }
      yield* releaseBinding(previous)
    })

  const withToolContext: Service["withToolContext"] = (thread, use) =>
    Effect.gen(function* () {
      const t = internal(thread)
      const config = yield* client.config
      const context = (set: ResourceClient.ConnectionSet): ToolHandlers.ToolContext => ({
        set,
        config,
        orchestratorMcpEnabled: t.config.orchestratorMcpEnabled ?? config.orchestrator.mcpEnabled,
        truncation: t.config.truncation ?? config.truncation
      })
      // the call holds its set for its whole run, also when a rebind lets the binding go meanwhile
      const binding = t.binding
      const held = binding === undefined ? client.acquire : client.hold(binding.set)
      return yield* Effect.scoped(Effect.flatMap(held, (set) => use(context(set))))
    })

  yield* Effect.addFinalizer(() =>
    Effect.forEach([...loaded.values()], (thread) => releaseBinding(thread.binding), { discard: true })
  )

  return Threads.of({
    start,
    resume: (connection, threadId) =>
      Effect.suspend(() => {
        const found = loaded.get(threadId)
        if (found === undefined) return load(connection, threadId)
        found.subscribers.add(connection.id)
        return Effect.succeed(found)
      }),
    get,
    list,
    remove,
    refresh,
    record,
    hasTurn,
    hasCall,
    rebind,
    withToolContext
  })
})

/** The Threads layer. */
export const layer = Layer.scoped(Threads, make)
