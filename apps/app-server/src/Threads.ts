/**
 * The loaded threads (the registry): which threads are in memory, their loading (one load at a time per
 * thread), their binding lease (resource-tools.md 1.3), the connections holding them and their end. A
 * thread's own state (replay, history, appends, subscribers) is ThreadState.ts; this service hands the
 * handlers one `Thread` per loaded thread and runs those operations on it.
 *
 * Threads end: an ephemeral thread with the last connection subscribed to it, a persistent one that no
 * connection holds after the idle time (`--thread-idle-timeout`, its binding released; `thread/resume`
 * loads it again).
 */
import type { Config, ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { OriginStore } from "@mcp-resources/resource-origins"
import { Skills } from "@mcp-resources/skills"
import { type ThreadFeed, ThreadStore } from "@mcp-resources/thread-store"
import { ResourceChanges, ResourceSearch, type ToolHandlers } from "@mcp-resources/tool-handlers"
import { Clock, Context, Duration, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { AppOptions } from "./AppOptions.js"
import type { Connection } from "./Connections.js"
import { Connections } from "./Connections.js"
import { ThreadConfig } from "./internal/params.js"
import { type MethodError, threadNotFound } from "./Method.js"
import { type Record as SubscriptionRecord, ResourceSubscriptions } from "./ResourceSubscriptions.js"
import { ThreadBodies, type Service as ThreadBodiesService } from "./ThreadBodies.js"
import * as ThreadState from "./ThreadState.js"

/** One loaded thread (ThreadState.ts). */
export type Thread = ThreadState.Thread

/** A thread's binding: the set it holds and the scope that holds it (closing the scope lets the set go). */
interface Binding {
  readonly scope: Scope.CloseableScope
  readonly set: ResourceClient.ConnectionSet
}

/** A loaded thread: its state and what the registry keeps of it. */
interface LoadedThread extends ThreadState.State {
  binding: Binding | undefined
  /** When a request last looked the thread up (Clock millis): the idle time counts from here. */
  lastUsed: number
  /** An idle-unload check is scheduled. */
  idleCheck: boolean
  /** The newest seq another process's notice announced (a clustered app-server); past `lastSeq`, the thread is stale. */
  noticed: number
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
  /** The seq of the newest record the loaded thread applied; undefined when the thread is not loaded here. */
  readonly appliedSeq: (threadId: string) => number | undefined
  /**
   * The completed item of a call in the thread's current history, with its turn (the store's newest
   * completion of that call id); `None` when the call is unknown, rolled back or not completed.
   */
  readonly completedItem: (
    thread: Thread,
    callId: string
  ) => Effect.Effect<
    Option.Option<{ readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>,
    ThreadStore.ThreadStoreError | MethodError
  >
  /** The completed items of the thread's current history, each call's newest completion, in completion order. */
  readonly completedItems: (
    thread: Thread
  ) => Effect.Effect<
    ReadonlyArray<{ readonly turnId: string; readonly item: ToolCallItem.McpToolCallItem }>,
    ThreadStore.ThreadStoreError
  >
  /**
   * Read-through on a miss: on a clustered app-server, when `found` is false the thread first applies
   * what other instances appended (a call acknowledged on another instance is then found here).
   * Unclustered, nothing is done.
   */
  readonly readThrough: (
    thread: Thread,
    found: Effect.Effect<boolean>
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /**
   * A notice of another process's append or removal (a clustered app-server's feed, Cluster.ts): a
   * loaded thread applies the records at once, sending them to its subscribers; a removed one is
   * unloaded. A thread not loaded here is left alone (it reads the store when it loads).
   */
  readonly noticed: (notice: ThreadFeed.Notice) => Effect.Effect<void>
  /** The feed lost notices (its connection was lost, then listened again): every loaded thread applies what it missed. */
  readonly missed: Effect.Effect<void>
  /**
   * A clustered app-server's owner takes the thread over (Cluster.ts, when the thread's entity starts on
   * this instance): loads it as `connection`, which holds it while the entity lives (the owner keeps the
   * thread loaded, and so detects its resource changes, after every client left), and closes every item
   * still open in the store as failed `interrupted` (calls run on the owner only, so no instance runs them
   * any more). Answers their call ids.
   */
  readonly adopt: (connection: Connection, threadId: string) => Effect.Effect<ReadonlyArray<string>, unknown>
  /**
   * A clustered app-server: `listener` is told of each thread loaded here that its owner must take up
   * (Cluster.ts asks the owner to): one with items still open (the owner closes them) or one holding
   * resource subscriptions (the owner detects their changes).
   */
  readonly onOwnerNeeded: (listener: (threadId: string) => Effect.Effect<void>) => Effect.Effect<void>
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

/** The margin before another instance's open item is closed as `interrupted` (ThreadState.ts). */
export const interruptMarginMs = ThreadState.interruptMarginMs

/**
 * Builds the service over the configured store (persistent threads) and a memory store (ephemeral
 * threads). With `relay` (a clustered app-server) the records other processes append are sent to this
 * process's subscribers and applied before a request is served (see `noticed`, `readThrough`).
 */
export const makeWith = (mode: { readonly relay: boolean }) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    const origins = yield* OriginStore.OriginStore
    const skills = yield* Skills.Skills
    const durable = yield* ThreadStore.ThreadStore
    const connections = yield* Connections
    const subscriptions = yield* ResourceSubscriptions
    const options = yield* Effect.serviceOption(AppOptions)
    // the search of every server's resources (`search_mcp_resources`, `mcp/resource/search`): one index per set
    const search = yield* Effect.serviceOption(ResourceSearch.ResourceSearch)
    // the bodies threads read (read_mcp_resource's `since`); the store opens at its first use
    const bodies = Option.getOrUndefined(yield* Effect.serviceOption(ThreadBodies))
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

    const releaseBinding = (binding: Binding | undefined) =>
      binding === undefined ? Effect.void : Scope.close(binding.scope, Exit.void)

    const unload = (thread: LoadedThread, deleted = false) =>
      Effect.gen(function* () {
        loaded.delete(thread.id)
        const binding = thread.binding
        thread.binding = undefined
        yield* releaseBinding(binding)
        yield* origins.forget(thread.id)
        yield* skills.forget(thread.id)
        yield* subscriptions.close(thread.id, { deleted })
      })

    // A clustered app-server's threads loaded with open items or subscriptions: their owner takes them up (Cluster.ts).
    let ownerListener: ((threadId: string) => Effect.Effect<void>) | undefined
    const ownerNeeded = (threadId: string) =>
      ownerListener === undefined ? Effect.void : background(ownerListener(threadId))

    // The thread's own state: its replay, history and appends (ThreadState.ts).
    const state = ThreadState.make({
      origins,
      subscriptions,
      bodies,
      connections,
      config: client.config,
      isLoaded: (t) => loaded.get(t.id) === t,
      gone: (t) => unload(t as LoadedThread, true),
      background,
      relay: mode.relay,
      ...(mode.relay ? { ownerNeeded } : {})
    })

    // A thread's pending resource changes are recorded with it; no precondition, so a lost race catches up and retries.
    const changesOf =
      (thread: LoadedThread): SubscriptionRecord =>
      (event) =>
        state.record(thread, event, undefined, {})

    const newThread = (
      fields: Pick<LoadedThread, "id" | "ephemeral" | "createdAt" | "config" | "store">,
      connection: Connection
    ) =>
      Effect.gen(function* () {
        const thread: LoadedThread = {
          ...fields,
          lock: yield* Effect.makeSemaphore(1),
          subscribers: new Set([connection.id]),
          history: [],
          reads: new Map(),
          open: new Set(),
          lastSeq: 0,
          binding: undefined,
          lastUsed: yield* Clock.currentTimeMillis,
          busy: 0,
          idleCheck: false,
          noticed: 0
        }
        return thread
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
          const thread = yield* newThread(
            {
              id: threadId,
              ephemeral: false,
              createdAt: info.value.createdAt,
              config: Option.getOrElse(decodeConfig(info.value.config ?? {}), () => ({})),
              store: durable
            },
            connection
          )
          const replayed = yield* state.replay(thread)
          loaded.set(threadId, thread)
          yield* subscriptions.open(threadId, thread.subscribers, replayed.subscriptions, changesOf(thread), {
            ephemeral: false
          })
          // a clustered thread holding subscriptions: its owner detects their changes (Cluster.ts)
          if (mode.relay && replayed.subscriptions.result().length > 0) yield* ownerNeeded(threadId)
          yield* Effect.logInfo("thread loaded").pipe(Effect.annotateLogs({ threadId, records: replayed.records }))
          yield* state.closeInterrupted(thread, replayed.open)
          return thread
        })
      )

    const start: Service["start"] = (connection, options) =>
      Effect.gen(function* () {
        const id = randomUUID()
        const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        const store = options.ephemeral ? ephemeralStore : durable
        yield* store.create({ id, createdAt, config: options.config })
        const thread = yield* newThread(
          { id, ephemeral: options.ephemeral, createdAt, config: options.config, store },
          connection
        )
        loaded.set(id, thread)
        yield* origins.load(id, [])
        yield* subscriptions.open(id, thread.subscribers, ResourceChanges.replayer(), changesOf(thread), {
          ephemeral: options.ephemeral
        })
        return thread
      })

    const touch = (thread: LoadedThread) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        thread.lastUsed = now
        return thread
      })

    /** A clustered app-server serves a thread whose notice announced a newer record only once it applied it. */
    const current = (thread: LoadedThread): Effect.Effect<LoadedThread, unknown> =>
      mode.relay && thread.noticed > thread.lastSeq ? Effect.as(state.refresh(thread), thread) : touch(thread)

    const get: Service["get"] = (connection, threadId) =>
      Effect.suspend(() => {
        const found = loaded.get(threadId)
        return found !== undefined ? current(found) : load(connection, threadId)
      })

    const readThrough: Service["readThrough"] = (thread, found) =>
      mode.relay ? Effect.flatMap(found, (yes) => (yes ? Effect.void : state.refresh(internal(thread)))) : Effect.void

    const missed: Service["missed"] = Effect.suspend(() =>
      Effect.forEach(
        [...loaded.values()],
        (t) =>
          !mode.relay || t.ephemeral
            ? Effect.void
            : state
                .refresh(t)
                .pipe(
                  Effect.catchAll((error) =>
                    Effect.logWarning(`could not apply the missed records of thread ${t.id}: ${error.message}`)
                  )
                ),
        { discard: true }
      )
    )

    const noticed: Service["noticed"] = (notice) =>
      Effect.suspend(() => {
        if (!mode.relay) return Effect.void
        const apply = (t: LoadedThread): Effect.Effect<void, unknown> => {
          if (loaded.get(t.id) !== t || t.ephemeral) return Effect.void
          if ("deleted" in notice)
            return t.lock.withPermits(1)(
              Effect.suspend(() =>
                loaded.get(t.id) === t
                  ? Effect.zipRight(
                      unload(t, true),
                      Effect.logInfo("thread unloaded").pipe(Effect.annotateLogs({ threadId: t.id, reason: "deleted" }))
                    )
                  : Effect.void
              )
            )
          t.noticed = Math.max(t.noticed, notice.seq)
          return notice.seq > t.lastSeq ? state.refresh(t) : Effect.void
        }
        const found = loaded.get(notice.threadId)
        // a thread loading now applies the notice once loaded (its replay may have read the store before the record)
        const applied =
          found !== undefined
            ? apply(found)
            : loadLocks.has(notice.threadId)
              ? whileLoading(
                  notice.threadId,
                  Effect.suspend(() => {
                    const t = loaded.get(notice.threadId)
                    return t === undefined ? Effect.void : apply(t)
                  })
                )
              : Effect.void
        return applied.pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(
              `could not apply another instance's records of thread ${notice.threadId}: ${error instanceof Error ? error.message : String(error)}`
            )
          )
        )
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

    const remove: Service["remove"] = (threadId) =>
      Effect.gen(function* () {
        const thread = loaded.get(threadId)
        if (thread !== undefined) {
          yield* thread.lock.withPermits(1)(unload(thread, true))
          if (thread.ephemeral) {
            yield* ephemeralStore.remove(threadId)
            if (bodies !== undefined) yield* bodies.drop(threadId)
            return
          }
        }
        const removed = yield* durable.remove(threadId)
        if (!removed && thread === undefined) return yield* Effect.fail(threadNotFound(threadId))
        if (bodies !== undefined) yield* bodies.drop(threadId)
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
                  bodies === undefined ? Effect.void : bodies.drop(t.id),
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

    const rebind: Service["rebind"] = (thread) =>
      Effect.gen(function* () {
        const t = internal(thread)
        const scope = yield* Scope.make()
        const set = yield* Scope.extend(client.acquire, scope)
        const previous = t.binding
        t.binding = { scope, set }
        yield* releaseBinding(previous)
      })

    /** The thread's bodies: the store, and its earlier reads from the thread's state. */
    const threadBodies = (service: ThreadBodiesService, t: LoadedThread): ToolHandlers.Bodies =>
      service.of(t.id, (query) =>
        Effect.sync(() =>
          Option.map(Option.fromNullable(state.earlier(t, query)), (entry) => ({
            callId: entry.callId,
            server: entry.server,
            read: entry.read
          }))
        )
      )

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
          ...(t.config.resources?.deny === undefined ? {} : { resourceDeny: t.config.resources.deny }),
          ...(Option.isSome(search) ? { search: search.value } : {}),
          ...(bodies === undefined ? {} : { bodies: threadBodies(bodies, t) })
        })
        // the call holds its set for its whole run, also when a rebind lets the binding go meanwhile
        const binding = t.binding
        const held = binding === undefined ? client.acquire : client.hold(binding.set)
        return yield* state.busyWith(t, Effect.scoped(Effect.flatMap(held, (set) => use(context(set)))))
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
          // a clustered thread with items open (their instance may have died): its owner takes it over
          return found.open.size > 0 && mode.relay
            ? Effect.zipRight(ownerNeeded(threadId), current(found))
            : current(found)
        }),
      get,
      list,
      remove,
      refresh: (thread) => Effect.suspend(() => state.refresh(internal(thread))),
      record: (thread, event, notification, retry) =>
        Effect.suspend(() => state.record(internal(thread), event, notification, retry)),
      recordCompletion: (thread, turnId, item, lost) =>
        Effect.suspend(() => state.recordCompletion(internal(thread), turnId, item, lost)),
      hasTurn: (thread, turnId) => state.hasTurn(internal(thread), turnId),
      hasCall: (thread, callId) => state.hasCall(internal(thread), callId),
      holders: (threadId) => [...(loaded.get(threadId)?.subscribers ?? [])],
      appliedSeq: (threadId) => loaded.get(threadId)?.lastSeq,
      completedItem: (thread, callId) =>
        Effect.suspend(() => {
          const item = state.completedItem(internal(thread), callId)
          return mode.relay
            ? Effect.flatMap(item, (found) =>
                Option.isSome(found) ? Effect.succeed(found) : Effect.zipRight(state.refresh(internal(thread)), item)
              )
            : item
        }),
      readThrough,
      noticed,
      missed,
      adopt: (connection, threadId) =>
        Effect.flatMap(
          Effect.suspend(() => {
            const found = loaded.get(threadId)
            if (found === undefined) return load(connection, threadId)
            // loaded by a client first: the owner holds it too, so that it stays loaded (and its changes
            // detected) after every client left
            found.subscribers.add(connection.id)
            return current(found)
          }),
          (t) => state.closeOpen(internal(t))
        ),
      onOwnerNeeded: (listener) =>
        Effect.sync(() => {
          ownerListener = listener
        }),
      completedItems: (thread) => Effect.suspend(() => state.completedItems(internal(thread))),
      rebind,
      withToolContext
    })
  })

/** Builds the service of one app-server alone (see {@link makeWith}). */
export const make = makeWith({ relay: false })

/** The Threads layer. */
export const layer = Layer.scoped(Threads, make)

/** The Threads layer of a clustered app-server: other instances' records are relayed and read through (Cluster.ts). */
export const layerRelaying = Layer.scoped(Threads, makeWith({ relay: true }))
