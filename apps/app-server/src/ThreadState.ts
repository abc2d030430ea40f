/**
 * One loaded thread's state and what is done to it: the replay of its records at load, its history of
 * turns and call ids, its store sequence, its subscribed connections, and the appends. Every event is
 * appended to the thread's store (durable) before the notification that follows from it is sent.
 * Records another process appended are applied before a thread method's append; a tool call's items
 * pull them only when they matter: an append that conflicts catches up and tries again (re-checking the
 * call's turn and call id), and a call about to be refused `turn not found` or `duplicate callId`
 * refreshes first (ToolHost.ts). Loading closes the started items that can no longer finish as failed
 * `interrupted`.
 *
 * Which threads are loaded, and for how long, is the registry's (Threads.ts): it builds the
 * {@link Operations} once and hands each thread's {@link State} to them.
 */
import type { Config, ThreadEvent, ToolCallItem } from "@mcp-resources/protocol"
import type { OriginStore } from "@mcp-resources/resource-origins"
import { ThreadStore } from "@mcp-resources/thread-store"
import { ResourceChanges } from "@mcp-resources/tool-handlers"
import { Duration, Effect, Option, Schedule } from "effect"
import type * as Connections from "./Connections.js"
import { failedItem, interruptedMessage } from "./internal/items.js"
import type { ThreadConfig } from "./internal/params.js"
import { reached } from "./internal/threadQueue.js"
import { type MethodError, threadNotFound } from "./Method.js"
import type * as ResourceSubscriptions from "./ResourceSubscriptions.js"
import type * as ThreadBodies from "./ThreadBodies.js"

/** One loaded thread as handlers see it: they read it and go through the `Threads` service to change it. */
export interface Thread {
  readonly id: string
  readonly ephemeral: boolean
  readonly createdAt: string
  /** The thread's config override from `thread/start`. */
  readonly config: ThreadConfig
}

interface HistoryTurn {
  readonly turnId: string
  readonly callIds: Set<string>
}

/** A completed extended read of the thread: what its item recorded of the bodies it returned. */
export interface ReadEntry {
  readonly turnId: string
  readonly callId: string
  readonly server: string
  readonly read: ToolCallItem.ResourceRead
}

/** What this process keeps of a loaded thread. */
export interface State extends Thread {
  readonly store: ThreadStore.Service
  readonly lock: Effect.Semaphore
  readonly subscribers: Set<number>
  readonly history: Array<HistoryTurn>
  /**
   * The thread's completed reads with their body digests, by call id in recording order (rebuilt by
   * the replay from every record, compactions included; a rollback removes those of its turns):
   * what `read_mcp_resource`'s `since` compares with.
   */
  readonly reads: Map<string, ReadEntry>
  /** The ids of the items started and not completed (a clustered thread's owner closes those a dead instance left). */
  readonly open: Set<string>
  lastSeq: number
  /** Tool contexts and records in progress: a busy thread is not unloaded. */
  busy: number
}

/** A completed (or started) item with its turn. */
export interface TurnItem {
  readonly turnId: string
  readonly item: ToolCallItem.McpToolCallItem
}

/** What a thread's replay found besides its state. */
export interface Replayed {
  /** The started items with no completion. */
  readonly open: ReadonlyArray<TurnItem>
  /** The resource subscriptions and their changes not yet handed over its records hold (fed the later records too). */
  readonly subscriptions: ResourceChanges.Replayer
  /** How many records it has. */
  readonly records: number
}

/** The operations on one thread's state (what a thread entity answers). */
export interface Operations {
  /** Folds every stored record into the state (a page at a time) and its origin state. */
  readonly replay: (t: State) => Effect.Effect<Replayed, ThreadStore.ThreadStoreError>
  /** Closes the started items that can no longer finish as failed `interrupted`. */
  readonly closeInterrupted: (t: State, items: ReadonlyArray<TurnItem>) => Effect.Effect<void>
  /**
   * Closes every started item still open in the store as failed `interrupted`, at once (a clustered
   * thread's new owner: no instance runs them any more); answers their call ids.
   */
  readonly closeOpen: (t: State) => Effect.Effect<ReadonlyArray<string>, ThreadStore.ThreadStoreError | MethodError>
  /** Applies what another process appended since this one last looked (`thread not found` once it is deleted). */
  readonly refresh: (t: State) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /** Appends the event durably, applies it, then notifies the subscribers (see `Threads.Service.record`). */
  readonly record: (
    t: State,
    event: ThreadEvent.ThreadEvent,
    notification?: { readonly method: string; readonly params: unknown },
    retry?: { readonly check?: () => MethodError | undefined }
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  /** Records a call's completed item (see `Threads.Service.recordCompletion`). */
  readonly recordCompletion: (
    t: State,
    turnId: string,
    item: ToolCallItem.McpToolCallItem,
    lost: (cause: string) => ToolCallItem.McpToolCallItem
  ) => Effect.Effect<void, ThreadStore.ThreadStoreError | MethodError>
  readonly hasTurn: (t: State, turnId: string) => boolean
  readonly hasCall: (t: State, callId: string) => boolean
  readonly completedItems: (t: State) => Effect.Effect<ReadonlyArray<TurnItem>, ThreadStore.ThreadStoreError>
  readonly completedItem: (
    t: State,
    callId: string
  ) => Effect.Effect<Option.Option<TurnItem>, ThreadStore.ThreadStoreError>
  /** The thread's earlier read: of call `callId`, or else the latest completed read of `uri` on `server`. */
  readonly earlier: (
    t: State,
    query: { readonly server: string; readonly uri: string; readonly callId?: string }
  ) => ReadEntry | undefined
  /** Counts `effect` as work on the thread (an idle check waits for it). */
  readonly busyWith: <A, E, R>(t: State, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** What the operations need from the registry and the server. */
export interface Dependencies {
  readonly origins: OriginStore.Service
  readonly subscriptions: ResourceSubscriptions.Service
  /** The bodies threads read (released when a rollback removes the reads); absent: nothing is kept. */
  readonly bodies?: ThreadBodies.Service | undefined
  readonly connections: Connections.Service
  readonly config: Effect.Effect<Config.Config>
  /** The state is the loaded one of its thread (not unloaded or replaced meanwhile). */
  readonly isLoaded: (t: State) => boolean
  /** Stops serving a thread another process deleted (the registry unloads it). */
  readonly gone: (t: State) => Effect.Effect<void>
  /** Forks background work that ends with the registry. */
  readonly background: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<void>
  /**
   * The records other processes appended are sent to this process's subscribers as they are applied
   * (a clustered app-server, Cluster.ts): each record's notification reaches every instance's
   * subscribers once, in the thread's order. Off, they are applied silently (an unclustered process).
   */
  readonly relay: boolean
  /**
   * A clustered app-server: asks the thread's owner to take the thread up (Threads.ts
   * `onOwnerNeeded`), here because items were found open at load, which are the owner's to close
   * (`closeOpen` when it takes the thread over). Absent, they are closed here.
   */
  readonly ownerNeeded?: ((threadId: string) => Effect.Effect<void>) | undefined
}

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

/**
 * The notification a record sends the thread's subscribers, as the method that appended it sent it
 * (turns.ts, threads.ts, ToolHost.ts); none for the records that send none.
 */
export const notificationOf = (
  threadId: string,
  event: ThreadEvent.ThreadEvent
): { readonly method: string; readonly params: unknown } | undefined => {
  switch (event._tag) {
    case "turnStarted":
      return { method: "turn/started", params: { threadId, turnId: event.turnId } }
    case "itemStarted":
      return itemNotification("started", threadId, event.turnId, event.item)
    case "itemCompleted":
      return itemNotification("completed", threadId, event.turnId, event.item)
    case "threadRolledBack":
      return { method: "thread/rolledBack", params: { threadId, numTurns: event.numTurns } }
    case "resourceChanged":
      // the owner's connections got it from its tracker (ResourceSubscriptions.ts); the others get it here
      return {
        method: "mcp/resource/changed",
        params: { threadId, ...ResourceChanges.storedChange(event.change) }
      }
    case "compacted":
    case "toolCallEnded":
    case "toolAudited":
    case "resourceSubscribed":
    case "resourceUnsubscribed":
    case "resourceChangesTaken":
      return undefined
  }
}

const lastTurn = (thread: State, turnId: unknown): HistoryTurn | undefined => {
  for (let i = thread.history.length - 1; i >= 0; i--)
    if (thread.history[i]!.turnId === turnId) return thread.history[i]
  return undefined
}

const apply = (thread: State, event: ThreadEvent.ThreadEvent) => {
  switch (event._tag) {
    case "turnStarted":
      if (thread.history.at(-1)?.turnId !== event.turnId)
        thread.history.push({ turnId: event.turnId, callIds: new Set() })
      break
    case "itemStarted":
    case "itemCompleted": {
      if (event._tag === "itemStarted") thread.open.add(event.item.id)
      else thread.open.delete(event.item.id)
      const turn = lastTurn(thread, event.turnId)
      turn?.callIds.add(event.item.id)
      const read = event.item.resourceRead
      if (event._tag === "itemCompleted" && read !== undefined && event.item.status === "completed") {
        thread.reads.delete(event.item.id)
        thread.reads.set(event.item.id, {
          turnId: event.turnId,
          callId: event.item.id,
          server: event.item.server,
          read
        })
      }
      break
    }
    case "threadRolledBack": {
      const removed = thread.history.splice(Math.max(0, thread.history.length - event.numTurns))
      const turns = new Set(removed.map((turn) => turn.turnId))
      for (const [callId, entry] of [...thread.reads]) if (turns.has(entry.turnId)) thread.reads.delete(callId)
      break
    }
    case "compacted":
    case "toolCallEnded":
    case "toolAudited":
    case "resourceSubscribed":
    case "resourceUnsubscribed":
    case "resourceChanged":
    case "resourceChangesTaken":
      break
  }
}

/** The turns a rollback event removes from the thread's history. */
const rolledBackTurns = (thread: State, event: ThreadEvent.ThreadEvent): ReadonlyArray<string> =>
  event._tag === "threadRolledBack" && event.numTurns > 0
    ? thread.history.slice(Math.max(0, thread.history.length - event.numTurns)).map((turn) => turn.turnId)
    : []

/** Builds the operations over the registry's dependencies. */
export const make = (deps: Dependencies): Operations => {
  const { origins, subscriptions, connections, isLoaded, background } = deps

  /** The digests only the reads of these turns hold (those another read of the thread holds stay). */
  const releasedBy = (thread: State, turnIds: ReadonlyArray<string>): ReadonlyArray<string> => {
    if (turnIds.length === 0) return []
    const turns = new Set(turnIds)
    const gone = new Set<string>()
    const kept = new Set<string>()
    for (const entry of thread.reads.values())
      for (const body of entry.read.contents) {
        if (!body.kept) continue
        ;(turns.has(entry.turnId) ? gone : kept).add(body.digest)
      }
    return [...gone].filter((digest) => !kept.has(digest))
  }

  // A thread unloaded meanwhile (a late record of a call that was running) leaves no origin state behind.
  const observe = (thread: State, event: ThreadEvent.ThreadEvent) =>
    Effect.suspend(() => {
      const removed = rolledBackTurns(thread, event)
      const released = removed.length === 0 ? [] : releasedBy(thread, removed)
      apply(thread, event)
      if (!isLoaded(thread)) return Effect.void
      subscriptions.observe(thread.id, event)
      // only a rollback ends subscriptions and releases bodies: any other event is not shown to them
      if (removed.length === 0) return origins.observe(thread.id, event)
      return Effect.zipRight(
        Effect.zipRight(origins.observe(thread.id, event), subscriptions.rolledBack(thread.id, removed)),
        released.length === 0 || deps.bodies === undefined ? Effect.void : deps.bodies.release(thread.id, released)
      )
    })

  /** The thread's earlier read (`ToolContext.bodies`): of a call, or the latest of a resource. */
  const earlier = (
    thread: State,
    query: { readonly server: string; readonly uri: string; readonly callId?: string }
  ) => {
    if (query.callId !== undefined) {
      const entry = thread.reads.get(query.callId)
      return entry !== undefined && hasCall(thread, entry.callId) ? entry : undefined
    }
    const entries = [...thread.reads.values()]
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!
      if (entry.server === query.server && entry.read.uri === query.uri) return entry
    }
    return undefined
  }

  const catchUp = (thread: State) =>
    Effect.gen(function* () {
      if (thread.ephemeral) return
      const records = yield* thread.store.since(thread.id, thread.lastSeq)
      for (const record of records) {
        yield* observe(thread, record.event)
        thread.lastSeq = record.seq
        const notification = deps.relay ? notificationOf(thread.id, record.event) : undefined
        if (notification !== undefined)
          yield* connections.notify(thread.subscribers, notification.method, notification.params)
      }
    })

  const replay: Operations["replay"] = (thread) =>
    Effect.gen(function* () {
      // Every record, a page at a time, folded into what the thread keeps: the turn and call-id
      // history that `tool/call` checks reaches back past compactions, the origin state is rebuilt
      // from the newest compaction's checkpoint on, and the subscriptions and unfinished items are
      // replayed. No page is kept, so a long thread never holds all its events at once.
      const threadId = thread.id
      const originLoader = yield* origins.loader(threadId)
      const held = ResourceChanges.replayer()
      const open = new Map<string, TurnItem>()
      let count = 0
      thread.lastSeq = yield* thread.store.sincePages(threadId, 0, (records) =>
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
      return { open: [...open.values()], subscriptions: held, records: count }
    })

  // Another process sharing the store deleted the thread: stop serving it from memory (with the lock held).
  const whileStored =
    (t: State) =>
    <A>(
      effect: Effect.Effect<A, ThreadStore.ThreadStoreError>
    ): Effect.Effect<A, ThreadStore.ThreadStoreError | MethodError> =>
      Effect.catchIf(
        effect,
        (error) => error.reason === "notFound",
        () => Effect.zipRight(isLoaded(t) ? deps.gone(t) : Effect.void, Effect.fail(threadNotFound(t.id)))
      )

  const refresh: Operations["refresh"] = (t) => t.lock.withPermits(1)(whileStored(t)(catchUp(t)))

  const busyWith: Operations["busyWith"] = (t, effect) =>
    Effect.acquireUseRelease(
      Effect.sync(() => t.busy++),
      () => effect,
      () => Effect.sync(() => t.busy--)
    )

  /** Appends at the thread's last seq; a conflict catches up, re-checks and tries again (at most {@link maxConflicts} times). */
  const appendCaughtUp = (
    t: State,
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

  const record: Operations["record"] = (t, event, notification, retry) =>
    busyWith(
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

  const recordCompleted = (t: State, turnId: string, item: ToolCallItem.McpToolCallItem) =>
    record(t, { _tag: "itemCompleted", turnId, item }, itemNotification("completed", t.id, turnId, item), {})

  // In the background, until the store takes it (or the thread is gone): the call already failed.
  const recordLost = (t: State, turnId: string, item: ToolCallItem.McpToolCallItem) =>
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

  const recordCompletion: Operations["recordCompletion"] = (t, turnId, item, lost) =>
    recordCompleted(t, turnId, item).pipe(
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

  /**
   * Closes the started items that can no longer finish as failed `interrupted`: at once when this
   * process is the store's only writer (SQLite holds its database exclusively; memory), otherwise
   * (PostgreSQL) once each call's tool timeout plus {@link interruptMarginMs} has passed with the item
   * still open, so that a call running in another instance is left alone.
   */
  const interrupted = (item: ToolCallItem.McpToolCallItem) => failedItem(item, interruptedMessage, null)

  const closeOpen: Operations["closeOpen"] = (t) =>
    Effect.gen(function* () {
      if (t.ephemeral) return []
      const open = new Map<string, TurnItem>()
      for (const { event } of yield* whileStored(t)(t.store.since(t.id, 0))) {
        if (event._tag === "itemStarted") open.set(event.item.id, { turnId: event.turnId, item: event.item })
        else if (event._tag === "itemCompleted") open.delete(event.item.id)
      }
      for (const { turnId, item } of open.values()) yield* recordCompleted(t, turnId, interrupted(item))
      if (open.size > 0)
        yield* Effect.logInfo("closed interrupted items").pipe(
          Effect.annotateLogs({ threadId: t.id, items: open.size })
        )
      return [...open.keys()]
    })

  const closeInterrupted: Operations["closeInterrupted"] = (t, items) =>
    Effect.gen(function* () {
      if (items.length === 0) return
      if (deps.ownerNeeded !== undefined) return yield* deps.ownerNeeded(t.id)
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
      const config = yield* deps.config
      const fromSeq = t.lastSeq
      for (const { turnId, item } of items) {
        const timeoutSec = config.mcpServers.find((server) => server.name === item.server)?.toolTimeoutSec ?? 300
        const later = Effect.gen(function* () {
          yield* Effect.sleep(Duration.millis(timeoutSec * 1000 + interruptMarginMs))
          // Unloaded meanwhile: the next load looks again.
          if (!isLoaded(t)) return
          const since = yield* t.store.since(t.id, fromSeq)
          if (since.some((r) => r.event._tag === "itemCompleted" && r.event.item.id === item.id)) return
          yield* recordCompleted(t, turnId, interrupted(item))
        }).pipe(Effect.catchAll(warn(item.id)))
        yield* background(later)
      }
    })

  const hasTurn: Operations["hasTurn"] = (t, turnId) => t.history.some((turn) => turn.turnId === turnId)
  const hasCall: Operations["hasCall"] = (t, callId) => t.history.some((turn) => turn.callIds.has(callId))
  const completedItems: Operations["completedItems"] = (t) =>
    Effect.gen(function* () {
      const records = yield* t.store.since(t.id, 0)
      const byCall = new Map<string, TurnItem>()
      for (const { event } of records) {
        if (event._tag !== "itemCompleted") continue
        byCall.delete(event.item.id)
        byCall.set(event.item.id, { turnId: event.turnId, item: event.item })
      }
      return [...byCall.values()].filter(({ turnId, item }) => hasTurn(t, turnId) && hasCall(t, item.id))
    })
  const completedItem: Operations["completedItem"] = (t, callId) =>
    hasCall(t, callId)
      ? Effect.map(completedItems(t), (items) => Option.fromNullable(items.find((i) => i.item.id === callId)))
      : Effect.succeed(Option.none())

  return {
    replay,
    closeInterrupted,
    closeOpen,
    refresh,
    record,
    recordCompletion,
    hasTurn,
    hasCall,
    completedItems,
    completedItem,
    earlier,
    busyWith
  }
}
