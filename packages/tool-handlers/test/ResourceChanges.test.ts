/**
 * The per-thread resource-change tracker: one subscription per resource, at most 64 (the oldest is
 * dropped and unsubscribed), updates coalesced per resource, `take` hands over and clears, rollback
 * drops a turn's subscriptions, resubscribe moves them to a new set, and replay rebuilds them from
 * stored events, with the changes not yet handed over (a journal stores one per resource per take). The subscriber records what would go on the wire; the app-server tests run the same
 * against real servers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ThreadEvent } from "@mcp-resources/protocol"
import { Deferred, Effect, Fiber, Option, Queue, TestClock } from "effect"
import { ResourceChanges } from "../src/index.js"

const recorder = (supported: (server: string) => boolean = () => true) => {
  const calls: Array<string> = []
  const subscriber: ResourceChanges.Subscriber = {
    subscribe: (server, uri) =>
      Effect.sync(() => {
        if (!supported(server)) return "unsupported" as const
        calls.push(`+${server} ${uri}`)
        return "subscribed" as const
      }),
    unsubscribe: (server, uri) => Effect.sync(() => void calls.push(`-${server} ${uri}`))
  }
  return { calls, subscriber }
}

describe("ResourceChanges", () => {
  it.effect("a resource read twice is subscribed once and names the latest read's call", () =>
    Effect.gen(function* () {
      const { calls, subscriber } = recorder()
      const tracker = yield* ResourceChanges.make(subscriber)
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1", turnId: "t1" })
      const again = yield* tracker.track({ server: "s", uri: "file:///a", callId: "c2", turnId: "t2" })
      assert.strictEqual(again.status, "subscribed")
      assert.deepStrictEqual(calls, ["+s file:///a"])
      const change = yield* tracker.update("s", "file:///a")
      assert.strictEqual(Option.getOrThrow(change).readInCallId, "c2")
    })
  )

  it.effect("the 65th resource drops and unsubscribes the oldest", () =>
    Effect.gen(function* () {
      const { calls, subscriber } = recorder()
      const tracker = yield* ResourceChanges.make(subscriber)
      for (let i = 0; i < ResourceChanges.maxSubscriptions; i++) {
        yield* tracker.track({ server: "s", uri: `file:///${i}`, callId: `c${i}` })
      }
      // reading the first again makes it the newest: the second is now the oldest
      yield* tracker.track({ server: "s", uri: "file:///0", callId: "again" })
      const tracked = yield* tracker.track({ server: "s", uri: "file:///new", callId: "cn" })
      assert.deepStrictEqual(
        tracked.dropped.map((s) => s.uri),
        ["file:///1"]
      )
      assert.strictEqual(calls.at(-1), "-s file:///1")
      const held = yield* tracker.subscriptions
      assert.strictEqual(held.length, ResourceChanges.maxSubscriptions)
      assert.isFalse(held.some((s) => s.uri === "file:///1"))
      assert.isTrue(Option.isNone(yield* tracker.update("s", "file:///1")))
    })
  )

  it.effect("1000 updates of one resource are one change with the latest time; take clears", () =>
    Effect.gen(function* () {
      const { subscriber } = recorder()
      const tracker = yield* ResourceChanges.make(subscriber)
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1" })
      yield* tracker.track({ server: "s", uri: "file:///b", callId: "c2" })
      yield* tracker.update("s", "file:///b")
      for (let i = 0; i < 999; i++) yield* tracker.update("s", "file:///a")
      yield* TestClock.adjust("1 second")
      yield* tracker.update("s", "file:///a")
      yield* tracker.update("s", "file:///unknown")
      const changes = yield* tracker.take
      // nothing is known of the bodies: the reads gave none and the updates were pushed
      const unknown = { sizeBefore: null, sizeAfter: null, digestBefore: null, digestAfter: null, diffAvailable: false }
      assert.deepStrictEqual(changes, [
        { server: "s", uri: "file:///b", readInCallId: "c2", changedAt: new Date(0).toISOString(), ...unknown },
        { server: "s", uri: "file:///a", readInCallId: "c1", changedAt: new Date(1000).toISOString(), ...unknown }
      ])
      assert.deepStrictEqual(yield* tracker.take, [])
    })
  )

  it.effect("a change names the body read before and, when its source fetched it, the new one", () =>
    Effect.gen(function* () {
      const { subscriber } = recorder()
      const tracker = yield* ResourceChanges.make(subscriber)
      const body = { digest: "a".repeat(64), size: 12, diffAvailable: true }
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c0", body: { ...body, digest: "0".repeat(64) } })
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1", body })
      // a window further into the body says nothing of it: the body known stays
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1" })
      yield* tracker.track({ server: "s", uri: "file:///b", callId: "c2", body })
      // a read of several contents: unknown
      yield* tracker.track({ server: "s", uri: "file:///b", callId: "c2", body: undefined })
      yield* tracker.update("s", "file:///a")
      yield* tracker.update("s", "file:///b", { digest: "b".repeat(64), size: 7 })
      assert.deepStrictEqual(
        (yield* tracker.take).map(({ changedAt: _, ...change }) => change),
        [
          {
            server: "s",
            uri: "file:///a",
            readInCallId: "c1",
            sizeBefore: 12,
            sizeAfter: null,
            digestBefore: "a".repeat(64),
            digestAfter: null,
            diffAvailable: true
          },
          {
            server: "s",
            uri: "file:///b",
            readInCallId: "c2",
            sizeBefore: null,
            sizeAfter: 7,
            digestBefore: null,
            digestAfter: "b".repeat(64),
            diffAvailable: false
          }
        ]
      )
    })
  )

  it.effect("a server without subscriptions claims nothing and records no change", () =>
    Effect.gen(function* () {
      const { calls, subscriber } = recorder((server) => server !== "plain")
      const tracker = yield* ResourceChanges.make(subscriber)
      const tracked = yield* tracker.track({ server: "plain", uri: "file:///a", callId: "c1" })
      assert.strictEqual(tracked.status, "unsupported")
      assert.deepStrictEqual(calls, [])
      assert.deepStrictEqual(yield* tracker.subscriptions, [])
      assert.isTrue(Option.isNone(yield* tracker.update("plain", "file:///a")))
    })
  )

  it.effect("rollback drops the turn's subscriptions; resubscribe moves the rest to the new set", () =>
    Effect.gen(function* () {
      const first = recorder()
      const tracker = yield* ResourceChanges.make(first.subscriber)
      yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1", turnId: "t1" })
      yield* tracker.track({ server: "s", uri: "file:///b", callId: "c2", turnId: "t2" })
      const dropped = yield* tracker.dropTurns(["t2"])
      assert.deepStrictEqual(
        dropped.map((s) => s.uri),
        ["file:///b"]
      )
      const second = recorder()
      yield* tracker.resubscribe(second.subscriber)
      assert.deepStrictEqual(first.calls, ["+s file:///a", "+s file:///b", "-s file:///b", "-s file:///a"])
      assert.deepStrictEqual(second.calls, ["+s file:///a"])
      yield* tracker.close
      assert.deepStrictEqual(second.calls, ["+s file:///a", "-s file:///a"])
    })
  )

  it("replay gives a subscription the body its resource's latest read recorded (one content item only)", () => {
    const item = (
      id: string,
      contents: ReadonlyArray<{ digest: string; size: number; text: boolean; kept: boolean }>
    ) =>
      ({
        _tag: "itemCompleted",
        turnId: "t1",
        item: {
          type: "mcpToolCall",
          id,
          server: "s",
          tool: "read_mcp_resource",
          arguments: {},
          status: "completed",
          result: null,
          error: null,
          durationMs: 1,
          resourceRead: { uri: `file:///${id}`, contents }
        }
      }) as const
    const one = { digest: "d".repeat(64), size: 3, text: true, kept: true }
    const subscribed = (id: string) =>
      ({ _tag: "resourceSubscribed", turnId: "t1", server: "s", uri: `file:///${id}`, readInCallId: id }) as const
    const held = ResourceChanges.replay([
      { _tag: "turnStarted", turnId: "t1" },
      subscribed("one"),
      item("one", [one]),
      subscribed("two"),
      item("two", [one, { ...one, text: false, kept: false }]),
      // a window further into file:///one (its item records no body) names its call; the body stays
      { _tag: "resourceSubscribed", turnId: "t1", server: "s", uri: "file:///one", readInCallId: "page" }
    ])
    assert.deepStrictEqual(
      held.map((s) => [s.uri, s.readInCallId, s.body]),
      [
        ["file:///two", "two", undefined],
        ["file:///one", "page", { digest: one.digest, size: 3, diffAvailable: true }]
      ]
    )
  })

  it.effect("replay rebuilds the subscriptions of stored events; follow records the updates", () =>
    Effect.gen(function* () {
      const events: ReadonlyArray<ThreadEvent.ThreadEvent> = [
        { _tag: "turnStarted", turnId: "t1" },
        { _tag: "resourceSubscribed", turnId: "t1", server: "s", uri: "file:///a", readInCallId: "c1" },
        { _tag: "resourceSubscribed", turnId: null, server: "s", uri: "file:///ui", readInCallId: null },
        { _tag: "turnStarted", turnId: "t2" },
        { _tag: "resourceSubscribed", turnId: "t2", server: "s", uri: "file:///b", readInCallId: "c2" },
        { _tag: "resourceSubscribed", turnId: "t2", server: "s", uri: "file:///c", readInCallId: "c3" },
        { _tag: "resourceUnsubscribed", server: "s", uri: "file:///c" },
        { _tag: "threadRolledBack", numTurns: 1 }
      ]
      const initial = ResourceChanges.replay(events)
      assert.deepStrictEqual(
        initial.map((s) => s.uri),
        ["file:///a", "file:///ui"]
      )
      // Fed one event at a time, the replayer holds what the events so far hold.
      const fed = ResourceChanges.replayer()
      for (const event of events.slice(0, 6)) fed.add(event)
      assert.deepStrictEqual(
        fed.result().map((s) => s.uri),
        ["file:///a", "file:///ui", "file:///b", "file:///c"]
      )
      for (const event of events.slice(6)) fed.add(event)
      assert.deepStrictEqual(fed.result(), initial)
      const { calls, subscriber } = recorder()
      const tracker = yield* ResourceChanges.make(subscriber, { initial })
      assert.deepStrictEqual(calls, [])
      yield* tracker.resubscribe(subscriber)
      assert.deepStrictEqual(calls, ["+s file:///a", "+s file:///ui"])
      const updates = yield* Queue.unbounded<ResourceChanges.Update>()
      const seen = yield* Queue.unbounded<ResourceChanges.Change>()
      yield* Effect.fork(ResourceChanges.follow(tracker, updates, (change) => Queue.offer(seen, change)))
      yield* Queue.offerAll(updates, [
        { _tag: "listChanged", server: "s" },
        { _tag: "updated", server: "s", uri: "file:///b" },
        { _tag: "updated", server: "s", uri: "file:///ui" }
      ])
      const change = yield* Queue.take(seen)
      assert.strictEqual(change.uri, "file:///ui")
      assert.strictEqual(change.readInCallId, null)
    })
  )
  it.effect(
    "a journal keeps one record per resource between takes however many updates, and a take's hand-over; a tracker made from the replayed records hands the pending changes over once",
    () =>
      Effect.gen(function* () {
        const { subscriber } = recorder()
        const stored: Array<ThreadEvent.ThreadEvent> = [{ _tag: "turnStarted", turnId: "t1" }]
        const journal: ResourceChanges.Journal = {
          changed: (change) => Effect.sync(() => void stored.push({ _tag: "resourceChanged", change })),
          taken: () => Effect.sync(() => void stored.push({ _tag: "resourceChangesTaken" }))
        }
        const tracker = yield* ResourceChanges.make(subscriber, { journal })
        for (const [uri, callId] of [
          ["file:///a", "c1"],
          ["file:///b", "c2"],
          ["file:///c", "c3"]
        ] as const) {
          const tracked = yield* tracker.track({ server: "s", uri, callId, turnId: "t1" })
          stored.push({ _tag: "resourceSubscribed", ...Option.getOrThrow(tracked.subscription) })
        }
        // a flood: 1000 updates of a and of b, then one of c
        for (let i = 0; i < 1000; i++) {
          yield* tracker.update("s", "file:///a")
          yield* tracker.update("s", "file:///b")
        }
        yield* tracker.update("s", "file:///c")
        const kinds = () => stored.slice(4).map((e) => (e._tag === "resourceChanged" ? e.change.uri : e._tag))
        assert.deepStrictEqual(kinds(), ["file:///a", "file:///b", "file:///c"])
        assert.deepStrictEqual(
          (yield* tracker.take).map((c) => c.uri),
          ["file:///a", "file:///b", "file:///c"]
        )
        // an empty take stores nothing; the next window stores the next first update again
        assert.deepStrictEqual(yield* tracker.take, [])
        yield* TestClock.adjust("1 second")
        for (let i = 0; i < 10; i++) yield* tracker.update("s", "file:///b")
        assert.deepStrictEqual(kinds(), ["file:///a", "file:///b", "file:///c", "resourceChangesTaken", "file:///b"])

        // a restart: the records give the subscriptions and the change not yet handed over
        const replayed = ResourceChanges.replayer()
        for (const event of stored) replayed.add(event)
        const pending = replayed.pending()
        assert.deepStrictEqual(pending, [
          {
            server: "s",
            uri: "file:///b",
            readInCallId: "c2",
            changedAt: new Date(1000).toISOString(),
            sizeBefore: null,
            sizeAfter: null,
            digestBefore: null,
            digestAfter: null,
            diffAvailable: false
          }
        ])
        const restored: Array<ThreadEvent.ThreadEvent> = []
        const again = yield* ResourceChanges.make(subscriber, {
          initial: replayed.result(),
          pending,
          journal: {
            changed: (change) => Effect.sync(() => void restored.push({ _tag: "resourceChanged", change })),
            taken: () => Effect.sync(() => void restored.push({ _tag: "resourceChangesTaken" }))
          }
        })
        // an update of the pending resource coalesces with it: nothing more stored
        yield* again.update("s", "file:///b")
        assert.deepStrictEqual(restored, [])
        assert.deepStrictEqual(
          (yield* again.take).map((c) => c.uri),
          ["file:///b"]
        )
        assert.deepStrictEqual(restored, [{ _tag: "resourceChangesTaken" }])
        assert.deepStrictEqual(yield* again.take, [])
      })
  )

  it.effect(
    "journalEvery keeps a record of every update (a cluster's owner), and the records replay to the same pending change as the tracker's: the first place, the latest time",
    () =>
      Effect.gen(function* () {
        const { subscriber } = recorder()
        const stored: Array<ThreadEvent.ThreadEvent> = [{ _tag: "turnStarted", turnId: "t1" }]
        const tracker = yield* ResourceChanges.make(subscriber, {
          journalEvery: true,
          journal: {
            changed: (change) => Effect.sync(() => void stored.push({ _tag: "resourceChanged", change })),
            taken: () => Effect.sync(() => void stored.push({ _tag: "resourceChangesTaken" }))
          }
        })
        for (const uri of ["file:///a", "file:///b"]) {
          const tracked = yield* tracker.track({ server: "s", uri, callId: null, turnId: null })
          stored.push({ _tag: "resourceSubscribed", ...Option.getOrThrow(tracked.subscription) })
        }
        yield* tracker.update("s", "file:///a")
        yield* TestClock.adjust("1 second")
        yield* tracker.update("s", "file:///b")
        yield* TestClock.adjust("1 second")
        yield* tracker.update("s", "file:///a")
        const changes = stored.flatMap((e) =>
          e._tag === "resourceChanged" ? [`${e.change.uri}@${e.change.changedAt}`] : []
        )
        assert.deepStrictEqual(changes, [
          `file:///a@${new Date(0).toISOString()}`,
          `file:///b@${new Date(1000).toISOString()}`,
          `file:///a@${new Date(2000).toISOString()}`
        ])
        const replayed = ResourceChanges.replayer()
        for (const event of stored) replayed.add(event)
        const pending = replayed.pending()
        assert.deepStrictEqual(pending, [...(yield* tracker.take)])
        assert.deepStrictEqual(
          pending.map((c) => `${c.uri}@${c.changedAt}`),
          [`file:///a@${new Date(2000).toISOString()}`, `file:///b@${new Date(1000).toISOString()}`]
        )
      })
  )

  it.effect(
    "a take waits for the record of a change it hands over: the stored order is the change, then its hand-over",
    () =>
      Effect.gen(function* () {
        const { subscriber } = recorder()
        const stored: Array<string> = []
        const release = yield* Deferred.make<void>()
        const writing = yield* Deferred.make<void>()
        const tracker = yield* ResourceChanges.make(subscriber, {
          journal: {
            // a slow store: the change's record is written only when the test lets it
            changed: (change) =>
              Effect.zipRight(
                Effect.zipRight(Deferred.succeed(writing, undefined), Deferred.await(release)),
                Effect.sync(() => void stored.push(`changed ${change.uri}`))
              ),
            taken: (changes) => Effect.sync(() => void stored.push(`taken ${changes.length}`))
          }
        })
        yield* tracker.track({ server: "s", uri: "file:///a", callId: "c1" })
        const update = yield* Effect.fork(tracker.update("s", "file:///a"))
        yield* Deferred.await(writing)
        const take = yield* Effect.fork(tracker.take)
        yield* Effect.yieldNow({ priority: 1 })
        assert.deepStrictEqual(stored, [])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(update)
        assert.deepStrictEqual(
          (yield* Fiber.join(take)).map((c) => c.uri),
          ["file:///a"]
        )
        assert.deepStrictEqual(stored, ["changed file:///a", "taken 1"])
      })
  )

  it("the replayer's pending changes: a take clears them, a subscription that goes takes its change with it, and a change keeps the fields a change-aware read adds", () => {
    const changed = (uri: string, extra: Partial<ThreadEvent.StoredResourceChange> = {}): ThreadEvent.ThreadEvent => ({
      _tag: "resourceChanged",
      change: { server: "s", uri, readInCallId: null, changedAt: new Date(0).toISOString(), ...extra }
    })
    const subscribed = (uri: string, turnId: string | null): ThreadEvent.ThreadEvent => ({
      _tag: "resourceSubscribed",
      turnId,
      server: "s",
      uri,
      readInCallId: null
    })
    const diffFields = { sizeBefore: 10, sizeAfter: 12, digestBefore: "d1", digestAfter: "d2", diffAvailable: true }
    const r = ResourceChanges.replayer(3)
    for (const event of [
      { _tag: "turnStarted", turnId: "t1" },
      subscribed("file:///a", "t1"),
      subscribed("file:///b", "t1"),
      changed("file:///a"),
      changed("file:///unsubscribed"),
      { _tag: "resourceChangesTaken" },
      changed("file:///b", diffFields),
      { _tag: "turnStarted", turnId: "t2" },
      subscribed("file:///c", "t2"),
      subscribed("file:///ui", null),
      changed("file:///c"),
      changed("file:///ui")
    ] satisfies ReadonlyArray<ThreadEvent.ThreadEvent>)
      r.add(event)
    // a was taken; the fourth subscription evicted a (the oldest); nothing of a resource not subscribed
    assert.deepStrictEqual(
      r.pending().map((c) => c.uri),
      ["file:///b", "file:///c", "file:///ui"]
    )
    assert.deepStrictEqual(r.pending()[0], {
      server: "s",
      uri: "file:///b",
      readInCallId: null,
      changedAt: new Date(0).toISOString(),
      ...diffFields
    })
    // the rollback of t2 drops c's subscription and its change; unsubscribing b drops b's
    r.add({ _tag: "threadRolledBack", numTurns: 1 })
    r.add({ _tag: "resourceUnsubscribed", server: "s", uri: "file:///b" })
    assert.deepStrictEqual(
      r.pending().map((c) => c.uri),
      ["file:///ui"]
    )
  })

  it.effect(
    "followAll feeds every tracker followed at the time: each thread subscribed records, the others do not",
    () =>
      Effect.gen(function* () {
        const { subscriber } = recorder()
        const one = yield* ResourceChanges.make(subscriber)
        const two = yield* ResourceChanges.make(subscriber)
        const late = yield* ResourceChanges.make(subscriber)
        yield* one.track({ server: "s", uri: "file:///a", callId: "c1" })
        yield* two.track({ server: "s", uri: "file:///b", callId: "c2" })
        yield* late.track({ server: "s", uri: "file:///a", callId: "c3" })
        const told = yield* Queue.unbounded<string>()
        const followed = new Map<string, ResourceChanges.Followed>()
        const add = (name: string, tracker: ResourceChanges.Tracker) =>
          followed.set(name, { tracker, onChange: (change) => Queue.offer(told, `${name} ${change.uri}`) })
        add("one", one)
        add("two", two)
        const updates = yield* Queue.unbounded<ResourceChanges.Update>()
        yield* Effect.fork(ResourceChanges.followAll(updates, () => followed.values()))
        yield* Queue.offer(updates, { _tag: "updated", server: "s", uri: "file:///a" })
        assert.strictEqual(yield* Queue.take(told), "one file:///a")
        // a thread loaded later is fed from then on; one that went is not
        add("late", late)
        followed.delete("one")
        yield* Queue.offerAll(updates, [
          { _tag: "listChanged", server: "s" },
          { _tag: "updated", server: "s", uri: "file:///a" },
          { _tag: "updated", server: "s", uri: "file:///b" }
        ])
        assert.deepStrictEqual([yield* Queue.take(told), yield* Queue.take(told)], ["late file:///a", "two file:///b"])
        assert.deepStrictEqual(
          (yield* one.take).map((c) => c.uri),
          ["file:///a"]
        )
        assert.deepStrictEqual(
          (yield* late.take).map((c) => [c.uri, c.readInCallId]),
          [["file:///a", "c3"]]
        )
        assert.deepStrictEqual(
          (yield* two.take).map((c) => c.uri),
          ["file:///b"]
        )
      })
  )
})
