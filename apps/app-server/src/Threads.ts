/**
 * The loaded threads: their binding lease (resource-tools.md 1.3), history of turns and call ids, origin
 * state, store sequence and subscribed connections. Every event is appended to the thread's store
 * (durable) before the notification that follows from it is sent. Records another process appended
 * are applied before a thread method's append; a tool call's items pull them only when they matter:
 * an append that conflicts catches up and tries again (re-checking the call's turn and call id), and
 * a call about to be refused `turn not found` or `duplicate callId` refreshes first.
 *
 * Threads end: an ephemeral thread with the last connection subscribed to it, a persistent one that no
 * connection holds after the idle time (`--thread-idle-timeout`, its binding released; `thread/resume`
 * loads it again). Loading closes the started items that can no longer finish as failed `interrupted`.
 */
import type { Config, ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { Skills } from "@mcp-resources/skills"
import { ThreadStore } from "@mcp-resources/thread-store"
import { ResourceChanges, type ToolHandlers } from "@mcp-resources/tool-handlers"
import { Clock, Context, Duration, Effect, Exit, Layer, Option, Schedule, Schema, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { AppOptions } from "./AppOptions.js"
import type { Connection } from "./Connections.js"
import { Connections } from "./Connections.js"
import { failedItem, interruptedMessage } from "./internal/items.js"
import { reached } from "./internal/threadQueue.js"
import { ResourceSubscriptions } from "./ResourceSubscriptions.js"
import { ThreadConfig } from "./internal/params.js"
import { type MethodError, threadNotFound } from "./Method.js"

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
  /** When a request last looked the thread up (Clock millis): the idle time counts from here. */
  lastUsed: number
  /** Tool contexts and records in progress: a busy thread is not unloaded. */
  busy: number
  /** An idle-unload check is scheduled. */
  idleCheck: boolean
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
  readonly refresh: (thread: Thread) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /**
   * Appends the event durably, applies it, then sends the notification to the thread's subscribers
   * (`thread not found` as in `refresh`). By default what other processes appended is applied first and
   * an append that still loses a race fails (`modified concurrently`). With `retry` (tool calls' items)
   * the append expects the thread as this process last saw it; on a conflict the other records are
   * applied, `retry.check` (the caller's precondition) runs again on the caught-up thread, and the
   * append is tried again.
   */
  readonly record: (
    thread: Thread,
    event: ThreadEvent.ThreadEvent,
    notification?: { readonly method: string; readonly params: unknown },
    retry?: { readonly check?: () => MethodError | undefined }
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /**
   * Records the completed item of a call whose tool already ran, then sends `item/completed`. The
   * append has no precondition, so a lost race is retried after catching up, and a storage failure a
   * few times. When it still cannot be stored the call fails with the cause, and `lost(cause)` (a failed
   * item) is recorded in the background as soon as the store accepts writes again.
   */
  readonly recordCompletion: (
    thread: Thread,
    turnId: string,
    item: ToolCallItem.McpToolCallItem,
    lost: (cause: string) => ToolCallItem.McpToolCallItem
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /** The turn is in the thread's current history (started and not rolled back). */
  readonly hasTurn: (thread: Thread, turnId: string) => boolean
  /** The call id produced items in the thread's current history. */
  readonly hasCall: (thread: Thread, callId: string) => boolean
  /** The connections holding the loaded thread, in the order they started or resumed it (none when not loaded). */
  readonly holders: (threadId: string) => ReadonlyArray<number>
  /**
   * The completed item of a call in the thread's current history, with its turn (the store's newest
   * completion of that call id); `None` when the call is unknown, rolled back or not completed.
   */
  readonly completedItem: (
    thread: Thread,
    callId: string
  ) => Effect.Effect<
    Option.Option<{ readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>,
    ThreadStore.ThreadStoreError
  >
  /** The completed items of the thread's current history, each call's newest completion, in completion order. */
  readonly completedItems: (
    thread: Thread
  ) => Effect.Effect<
    ReadonlyArray<{ readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>,
    ThreadStore.ThreadStoreError
  >
  /** Holds the latest set as the thread's binding, releasing the previous one (at `turn/start`). */
  readonly rebind: (thread: Thread) => Effect.Effect<void>
  /** Runs `use` with the thread's tool context: its binding (or the latest set before its first turn) and the latest config. */
  readonly withToolContext: <A, E, R>(
    thread: Thread,
    use: (context: ToolHandlers.ToolContext) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
}

/** The thread's tool profile: its own from `thread/start`, else the config's `[tools] profile`. */
export const profileOf = (thread: Thread, config: Config.Config): Config.ToolProfile =>
  thread.config.toolProfile ?? config.tools.profile

/** The Threads tag. Layer: `layer`. */
export class Threads extends Context.Tag("@mcp-resources/app-server/Threads")<Threads, Service>() {}

const decodeConfig = Schema.decodeUnknownOption(ThreadConfig)

/** How long a persistent thread no connection holds stays loaded, unless `--thread-idle-timeout` says otherwise. */
export const defaultIdleTimeoutMs = 300_000

/**
 * On a store other processes write too (PostgreSQL), a started item found open at load is closed as
 * `interrupted` only once its call's tool timeout plus this margin has passed: a call still running in
 * another instance finishes (or times out) before then.
 */
export const interruptMarginMs = 30_000

/** An append that conflicts catches up and is tried again at most this many times in all (another process keeps winning). */
const maxConflicts = 8

/** A completed append that lost a race or hit a storage failure is retried this often before the call fails. */
const completionRetry = Schedule.exponential("20 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

/** A lost result's failed item is retried until the store accepts it: 100 ms doubling, at most 1 s apart. */
const lostResultRetry = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("1 second")))

const isStoreFailure = (error: unknown): boolean =>
  error instanceof ThreadStore.ThreadStoreError && error.reason !== "notFound"

const itemNotification = (kind: "started" | "completed", threadId: string, turnId: string, item: unknown) => ({
  method: `item/${kind}`,
  params: { threadId, turnId, item }
})

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
  const subscriptions = yield* ResourceSubscriptions
  const options = yield* Effect.serviceOption(AppOptions)
  const idleTimeoutMs = Option.match(options, {
    onNone: () => defaultIdleTimeoutMs,
    onSome: (o) => o.threadIdleTimeoutMs ?? defaultIdleTimeoutMs
  })
  const ephemeralStore = Context.get(yield* Layer.build(ThreadStore.layerMemory), ThreadStore.ThreadStore)
  const loaded = new Map<string, LoadedThread>()
  // One load at a time per thread (a second request for the same thread waits, then finds it loaded);
  // different threads load side by side, so a long thread never holds up another one's first request.
  // A thread's lock exists only while a load of it runs or waits.
  const loadLocks = new Map<string, { readonly lock: Effect.Semaphore; users: number }>()
  const whileLoading = <A, E, R>(threadId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        let entry = loadLocks.get(threadId)
        if (entry === undefined) {
          entry = { lock: Effect.unsafeMakeSemaphore(1), users: 0 }
          loadLocks.set(threadId, entry)
        }
        entry.users++
        return entry
      }),
      (entry) => entry.lock.withPermits(1)(effect),
      (entry) =>
        Effect.sync(() => {
          if (--entry.users === 0) loadLocks.delete(threadId)
        })
    )
  // Background work (idle checks, lost results, interrupted items) ends with the service: interruptible
  // even when forked from a finalizer or an uninterruptible record (each append stays whole).
  const scope = yield* Effect.scope
  const background = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.asVoid(Effect.forkIn(Effect.interruptible(effect), scope))

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
      case "toolAudited":
      case "resourceSubscribed":
      case "resourceUnsubscribed":
        break
    }
  }

  /** The turns a rollback event removes from the thread's history. */
  const rolledBackTurns = (thread: LoadedThread, event: ThreadEvent.ThreadEvent): ReadonlyArray<string> =>
    event._tag === "threadRolledBack" && event.numTurns > 0
      ? thread.history.slice(Math.max(0, thread.history.length - event.numTurns)).map((turn) => turn.turnId)
      : []

  // A thread unloaded meanwhile (a late record of a call that was running) leaves no origin state behind.
  const observe = (thread: LoadedThread, event: ThreadEvent.ThreadEvent) =>
    Effect.suspend(() => {
      const removed = rolledBackTurns(thread, event)
      apply(thread, event)
      if (loaded.get(thread.id) !== thread) return Effect.void
      return Effect.zipRight(origins.observe(thread.id, event), subscriptions.rolledBack(thread.id, removed))
    })

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
    whileLoading(
      threadId,
      Effect.gen(function* () {
        const existing = loaded.get(threadId)
        if (existing !== undefined) {
          existing.subscribers.add(connection.id)
          return existing
        }
        const info = yield* durable.get(threadId)
        if (Option.isNone(info)) return yield* Effect.fail(threadNotFound(threadId))
        yield* Effect.logInfo("loading thread").pipe(Effect.annotateLogs({ threadId }))
        const thread: LoadedThread = {
          id: threadId,
          ephemeral: false,
          createdAt: info.value.createdAt,
          config: Option.getOrElse(decodeConfig(info.value.config ?? {}), () => ({})),
          store: durable,
          lock: yield* Effect.makeSemaphore(1),
          subscribers: new Set([connection.id]),
          history: [],
          lastSeq: 0,
          binding: undefined,
          lastUsed: yield* Clock.currentTimeMillis,
          busy: 0,
          idleCheck: false
        }
        // Every record, a page at a time, folded into what the thread keeps: the turn and call-id
        // history that `tool/call` checks reaches back past compactions, the origin state is rebuilt
        // from the newest compaction's checkpoint on, and the subscriptions and unfinished items are
        // replayed. No page is kept, so a long thread never holds all its events at once.
        const originLoader = yield* origins.loader(threadId)
        const held = ResourceChanges.replayer()
        const open = new Map<string, { readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>()
        let count = 0
        thread.lastSeq = yield* durable.sincePages(threadId, 0, (records) =>
          Effect.sync(() => {
            for (const { event } of records) {
              apply(thread, event)
              originLoader.add(event)
              held.add(event)
              if (event._tag === "itemStarted") open.set(event.item.id, { turnId: event.turnId, item: event.item })
              else if (event._tag === "itemCompleted") open.delete(event.item.id)
            }
            count += records.length
          })
        )
        yield* originLoader.commit
        loaded.set(threadId, thread)
        yield* subscriptions.open(threadId, thread.subscribers, held.result())
        yield* Effect.logInfo("thread loaded").pipe(Effect.annotateLogs({ threadId, records: count }))
        yield* closeInterrupted(thread, [...open.values()])
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
        binding: undefined,
        lastUsed: yield* Clock.currentTimeMillis,
        busy: 0,
        idleCheck: false
      }
      loaded.set(id, thread)
      yield* origins.load(id, [])
      yield* subscriptions.open(id, thread.subscribers, [])
      return thread
    })

  const touch = (thread: LoadedThread) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      thread.lastUsed = now
      return thread
    })

  const get: Service["get"] = (connection, threadId) =>
    Effect.suspend(() => {
      const found = loaded.get(threadId)
      return found !== undefined ? touch(found) : load(connection, threadId)
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
      yield* subscriptions.close(thread.id)
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
    ): Effect.Effect<A, ThreadStore.ThreadStoreError | MethodError> =>
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

  /** Counts `effect` as work on the thread (an idle check waits for it). */
  const busyWith = <A, E, R>(t: LoadedThread, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.sync(() => t.busy++),
      () => effect,
      () => Effect.sync(() => t.busy--)
    )

  /** Appends at the thread's last seq; a conflict catches up, re-checks and tries again (at most {@link maxConflicts} times). */
  const appendCaughtUp = (
    t: LoadedThread,
    event: ThreadEvent.ThreadEvent,
    check: (() => MethodError | undefined) | undefined
  ): Effect.Effect<number, ThreadStore.ThreadStoreError | MethodError> =>
    Effect.gen(function* () {
      for (let attempt = 1; ; attempt++) {
        const appended = yield* Effect.either(whileStored(t)(t.store.append(t.id, t.lastSeq, event)))
        if (appended._tag === "Right") return appended.right
        const error = appended.left
        if (!(error instanceof ThreadStore.ThreadStoreError && error.reason === "conflict") || attempt >= maxConflicts)
          return yield* Effect.fail(error)
        yield* whileStored(t)(catchUp(t))
        const refused = check?.()
        if (refused !== undefined) return yield* Effect.fail(refused)
      }
    })

  const record: Service["record"] = (thread, event, notification, retry) =>
    Effect.suspend(() => {
      const t = internal(thread)
      return busyWith(
        t,
        t.lock.withPermits(1)(
          Effect.gen(function* () {
            if (retry === undefined) {
              yield* whileStored(t)(catchUp(t))
              t.lastSeq = yield* whileStored(t)(t.store.append(t.id, t.lastSeq, event))
            } else {
              t.lastSeq = yield* appendCaughtUp(t, event, retry.check)
            }
            yield* observe(t, event)
            if (notification !== undefined) {
              yield* connections.notify(t.subscribers, notification.method, notification.params)
            }
          })
        )
      ).pipe(
        // a call's started item is its start point in the thread's queue (internal/threadQueue.ts)
        Effect.zipRight(event._tag === "itemStarted" ? reached : Effect.void),
        Effect.uninterruptible
      )
    })

  const recordCompleted = (t: LoadedThread, turnId: string, item: ToolCallItem.McpToolCallItem) =>
    record(t, { _tag: "itemCompleted", turnId, item }, itemNotification("completed", t.id, turnId, item), {})

  // In the background, until the store takes it (or the thread is gone): the call already failed.
  const recordLost = (t: LoadedThread, turnId: string, item: ToolCallItem.McpToolCallItem) =>
    recordCompleted(t, turnId, item).pipe(
      Effect.retry({ schedule: lostResultRetry, while: isStoreFailure }),
      Effect.zipRight(
        Effect.logInfo("recorded a lost result as failed").pipe(Effect.annotateLogs({ callId: item.id }))
      ),
      Effect.catchAll((error) =>
        Effect.logWarning(`could not record the lost result of ${item.id}: ${error.message}`).pipe(
          Effect.annotateLogs({ threadId: t.id })
        )
      )
    )

  const recordCompletion: Service["recordCompletion"] = (thread, turnId, item, lost) =>
    Effect.suspend(() => {
      const t = internal(thread)
      return recordCompleted(t, turnId, item).pipe(
        Effect.retry({ schedule: completionRetry, while: isStoreFailure }),
        Effect.tapError((error) =>
          error instanceof ThreadStore.ThreadStoreError && isStoreFailure(error)
            ? Effect.zipRight(
                Effect.logWarning(`could not store the result of ${item.id}: ${error.message}`).pipe(
                  Effect.annotateLogs({ threadId: t.id })
                ),
                background(recordLost(t, turnId, lost(error.message)))
              )
            : Effect.void
        )
      )
    })

  /**
   * Closes the started items that can no longer finish as failed `interrupted`: at once when this
   * process is the store's only writer (SQLite holds its database exclusively; memory), otherwise
   * (PostgreSQL) once each call's tool timeout plus {@link interruptMarginMs} has passed with the item
   * still open, so that a call running in another instance is left alone.
   */
  const closeInterrupted = (
    t: LoadedThread,
    items: ReadonlyArray<{ readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>
  ) =>
    Effect.gen(function* () {
      if (items.length === 0) return
      const interrupted = (item: ToolCallItem.McpToolCallItem) => failedItem(item, interruptedMessage, null)
      const warn = (callId: string) => (error: { readonly message: string }) =>
        Effect.logWarning(`could not close the interrupted item ${callId}: ${error.message}`).pipe(
          Effect.annotateLogs({ threadId: t.id })
        )
      if (t.store.shared !== true) {
        for (const { turnId, item } of items) {
          yield* recordCompleted(t, turnId, interrupted(item)).pipe(Effect.catchAll(warn(item.id)))
        }
        yield* Effect.logInfo("closed interrupted items").pipe(
          Effect.annotateLogs({ threadId: t.id, items: items.length })
        )
        return
      }
      const config = yield* client.config
      const fromSeq = t.lastSeq
      for (const { turnId, item } of items) {
        const timeoutSec = config.mcpServers.find((server) => server.name === item.server)?.toolTimeoutSec ?? 300
        const later = Effect.gen(function* () {
          yield* Effect.sleep(Duration.millis(timeoutSec * 1000 + interruptMarginMs))
          // Unloaded meanwhile: the next load looks again.
          if (loaded.get(t.id) !== t) return
          const since = yield* t.store.since(t.id, fromSeq)
          if (since.some((r) => r.event._tag === "itemCompleted" && r.event.item.id === item.id)) return
          yield* recordCompleted(t, turnId, interrupted(item))
        }).pipe(Effect.catchAll(warn(item.id)))
        yield* background(later)
      }
    })

  const unloadIdle = (t: LoadedThread) =>
    t.lock.withPermits(1)(
      Effect.suspend(() =>
        loaded.get(t.id) === t && t.subscribers.size === 0 && t.busy === 0
          ? Effect.zipRight(
              unload(t),
              Effect.logInfo("thread unloaded").pipe(Effect.annotateLogs({ threadId: t.id, reason: "idle" }))
            )
          : Effect.void
      )
    )

  /** Unloads a persistent thread once no connection holds it and no request used it for the idle time. */
  const scheduleIdle = (t: LoadedThread): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (t.idleCheck) return Effect.void
      t.idleCheck = true
      const check: Effect.Effect<void> = Effect.gen(function* () {
        for (;;) {
          if (loaded.get(t.id) !== t || t.subscribers.size > 0) return
          const wait = t.lastUsed + idleTimeoutMs - (yield* Clock.currentTimeMillis)
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          else if (t.busy > 0) yield* Effect.sleep(Duration.millis(Math.min(idleTimeoutMs, 1000)))
          else return yield* unloadIdle(t)
        }
      }).pipe(Effect.ensuring(Effect.sync(() => (t.idleCheck = false))))
      return background(check)
    })

  /** An ephemeral thread ends with the last connection subscribed to it. */
  const endEphemeral = (t: LoadedThread) =>
    t.lock
      .withPermits(1)(
        Effect.suspend(() =>
          loaded.get(t.id) === t && t.subscribers.size === 0
            ? Effect.all([
                unload(t),
                ephemeralStore.remove(t.id),
                Effect.logInfo("thread unloaded").pipe(Effect.annotateLogs({ threadId: t.id, reason: "ephemeral" }))
              ])
            : Effect.void
        )
      )
      .pipe(Effect.catchAll((error) => Effect.logWarning(`could not end ephemeral thread ${t.id}: ${error.message}`)))

  /** A connection closed: it no longer holds its threads. */
  const detach = (connectionId: number) =>
    Effect.forEach(
      [...loaded.values()],
      (t) => {
        if (!t.subscribers.delete(connectionId) || t.subscribers.size > 0) return Effect.void
        return t.ephemeral ? background(endEphemeral(t)) : scheduleIdle(t)
      },
      { discard: true }
    )

  yield* connections.onClose(detach)

  const hasTurn: Service["hasTurn"] = (thread, turnId) => internal(thread).history.some((t) => t.turnId === turnId)
  const hasCall: Service["hasCall"] = (thread, callId) => internal(thread).history.some((t) => t.callIds.has(callId))
  const completedItems: Service["completedItems"] = (thread) =>
    Effect.gen(function* () {
      const t = internal(thread)
      const records = yield* t.store.since(t.id, 0)
      const byCall = new Map<string, { readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>()
      for (const { event } of records) {
        if (event._tag !== "itemCompleted") continue
        byCall.delete(event.item.id)
        byCall.set(event.item.id, { turnId: event.turnId, item: event.item })
      }
      return [...byCall.values()].filter(({ turnId, item }) => hasTurn(t, turnId) && hasCall(t, item.id))
    })
  const completedItem: Service["completedItem"] = (thread, callId) =>
    hasCall(thread, callId)
      ? Effect.map(completedItems(thread), (items) => Option.fromNullable(items.find((i) => i.item.id === callId)))
      : Effect.succeed(Option.none())

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
        truncation: t.config.truncation ?? config.truncation,
        profile: profileOf(t, config),
        ...(t.config.resources?.deny === undefined ? {} : { resourceDeny: t.config.resources.deny })
      })
      // the call holds its set for its whole run, also when a rebind lets the binding go meanwhile
      const binding = t.binding
      const held = binding === undefined ? client.acquire : client.hold(binding.set)
      return yield* busyWith(t, Effect.scoped(Effect.flatMap(held, (set) => use(context(set)))))
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
        return touch(found)
      }),
    get,
    list,
    remove,
    refresh,
    record,
    recordCompletion,
    hasTurn,
    hasCall,
    holders: (threadId) => [...(loaded.get(threadId)?.subscribers ?? [])],
    completedItem,
    completedItems,
    rebind,
    withToolContext
  })
})

/** The Threads layer. */
export const layer = Layer.scoped(Threads, make)
