/**
 * The BodyStore contract: one suite, run against the memory, SQLite and PostgreSQL layers.
 */
import { Config } from "@mcp-resources/protocol"
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { BodyStore } from "../src/index.js"

/** One fresh, empty storage per test. */
export interface Backend {
  /** A layer over this test's storage with these bounds; SQL backends give layers sharing one database each time. */
  readonly open: (bounds?: BodyStore.Bounds) => Layer.Layer<BodyStore.BodyStore, BodyStore.BodyStoreError>
}

/** Builds a store in the current scope. */
export const build = (layer: Layer.Layer<BodyStore.BodyStore, BodyStore.BodyStoreError>) =>
  Layer.build(layer).pipe(Effect.map(Context.get(BodyStore.BodyStore)))

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
const sha256 = (body: Uint8Array): string => createHash("sha256").update(body).digest("hex")
const meta = (uri: string, mimeType?: string): BodyStore.BodyMeta =>
  mimeType === undefined ? { uri } : { uri, mimeType }

/** Every bound large enough for the test's bodies. */
const roomy: BodyStore.Bounds = { bodyMaxBytes: 1 << 20, threadMaxBytes: 1 << 20, storeMaxBytes: 1 << 20 }

/** The bytes a thread holds (each body it holds counted whole). */
const threadBytes = (store: BodyStore.Service, threadId: string) =>
  Effect.map(store.list(threadId), (refs) => refs.reduce((sum, ref) => sum + ref.size, 0))

/** Asserts the store is within its bounds, for the store and each of `threads`. */
const assertWithin = (store: BodyStore.Service, threads: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const usage = yield* store.usage()
    assert.isAtMost(usage.bytes, store.bounds.storeMaxBytes, "store bytes over storeMaxBytes")
    for (const threadId of threads)
      assert.isAtMost(
        yield* threadBytes(store, threadId),
        store.bounds.threadMaxBytes,
        `${threadId} over threadMaxBytes`
      )
  })

/**
 * `persistent`: the storage outlives a store and is shared by the stores opened on it (the SQL
 * backends): closing a store and opening another finds the same bodies, and two stores write at once.
 */
export const bodyStoreSuite = (
  name: string,
  backend: Effect.Effect<Backend, never, Scope.Scope>,
  options: { readonly persistent: boolean }
) =>
  describe(`BodyStore ${name} layer`, () => {
    it.scoped("a body is stored once by its SHA-256, whichever threads put it, and read back as put", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open(roomy))
        const hello = bytes("hello")
        const first = yield* store.put("a", hello, meta("file:///hello.txt", "text/plain"))
        assert.deepStrictEqual(first, {
          digest: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
          size: 5,
          kept: true
        })
        assert.deepStrictEqual(yield* store.put("b", bytes("hello"), meta("mem://copy")), first)
        assert.deepStrictEqual(yield* store.usage(), { bodies: 1, bytes: 5 })
        assert.deepStrictEqual(yield* store.get(first.digest), Option.some(bytes("hello")))
        assert.deepStrictEqual(yield* store.list("a"), [
          { digest: first.digest, size: 5, uri: "file:///hello.txt", mimeType: "text/plain" }
        ])
        assert.deepStrictEqual(yield* store.list("b"), [{ digest: first.digest, size: 5, uri: "mem://copy" }])
        // The store holds its own copy: changing the bytes put, or those read, changes nothing stored.
        hello[0] = 0x4a
        const read = Option.getOrThrow(yield* store.get(first.digest))
        read[1] = 0x41
        assert.deepStrictEqual(yield* store.get(first.digest), Option.some(bytes("hello")))
        // Binary bytes and the empty body are bodies like any other.
        const binary = new Uint8Array([0, 255, 1, 254, 0])
        const put = yield* store.put("a", binary, meta("file:///b.bin", "application/octet-stream"))
        assert.deepStrictEqual(put, { digest: sha256(binary), size: 5, kept: true })
        assert.deepStrictEqual(yield* store.get(put.digest), Option.some(binary))
        const empty = yield* store.put("a", new Uint8Array(0), meta("file:///empty"))
        assert.deepStrictEqual(empty, { digest: sha256(new Uint8Array(0)), size: 0, kept: true })
        assert.deepStrictEqual(yield* store.get(empty.digest), Option.some(new Uint8Array(0)))
        assert.deepStrictEqual(yield* store.get("0".repeat(64)), Option.none())
        assert.deepStrictEqual(yield* store.list("nobody"), [])
      })
    )

    it.scoped("a body over bodyMaxBytes keeps only its digest: kept false, nothing stored, nothing evicted", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open({ ...roomy, bodyMaxBytes: 8 }))
        const small = yield* store.put("a", bytes("12345678"), meta("u:small"))
        assert.isTrue(small.kept)
        const big = bytes("123456789")
        assert.deepStrictEqual(yield* store.put("a", big, meta("u:big")), { digest: sha256(big), size: 9, kept: false })
        assert.deepStrictEqual(yield* store.get(sha256(big)), Option.none())
        assert.deepStrictEqual(
          (yield* store.list("a")).map((ref) => ref.uri),
          ["u:small"]
        )
        assert.deepStrictEqual(yield* store.usage(), { bodies: 1, bytes: 8 })
      })
    )

    it.scoped("a body larger than threadMaxBytes or storeMaxBytes is not kept either, and evicts nothing", () =>
      Effect.gen(function* () {
        const b = yield* backend
        const byThread = yield* build(b.open({ bodyMaxBytes: 100, threadMaxBytes: 6, storeMaxBytes: 100 }))
        yield* byThread.put("a", bytes("abc"), meta("u:abc"))
        assert.isFalse((yield* byThread.put("a", bytes("1234567"), meta("u:7"))).kept)
        assert.deepStrictEqual(yield* byThread.usage(), { bodies: 1, bytes: 3 })
        const byStore = yield* build(b.open({ bodyMaxBytes: 100, threadMaxBytes: 100, storeMaxBytes: 6 }))
        yield* byStore.put("a", bytes("abc"), meta("u:abc"))
        assert.isFalse((yield* byStore.put("b", bytes("1234567"), meta("u:7"))).kept)
        assert.deepStrictEqual(
          (yield* byStore.list("a")).map((ref) => ref.uri),
          ["u:abc"]
        )
      })
    )

    it.scoped(
      "past threadMaxBytes the thread's oldest bodies are released first; a put again makes a body newest",
      () =>
        Effect.gen(function* () {
          const store = yield* build(
            (yield* backend).open({ bodyMaxBytes: 100, threadMaxBytes: 10, storeMaxBytes: 100 })
          )
          const [one, two, three] = [bytes("1111"), bytes("2222"), bytes("3333")]
          yield* store.put("a", one, meta("u:1"))
          yield* store.put("other", one, meta("u:1"))
          yield* store.put("a", two, meta("u:2"))
          yield* store.put("a", three, meta("u:3"))
          // 12 bytes > 10: the oldest (1) is released by a, and kept for the other thread that holds it.
          assert.deepStrictEqual(
            (yield* store.list("a")).map((ref) => ref.uri),
            ["u:2", "u:3"]
          )
          assert.deepStrictEqual(yield* store.get(sha256(one)), Option.some(one))
          // 2 put again is the newest: 3 is now the oldest and goes when 4 comes.
          yield* store.put("a", two, meta("u:2 again"))
          yield* store.put("a", bytes("4444"), meta("u:4"))
          assert.deepStrictEqual(
            (yield* store.list("a")).map((ref) => ref.uri),
            ["u:2 again", "u:4"]
          )
          // No thread holds 3 any more: it is gone from the store.
          assert.deepStrictEqual(yield* store.get(sha256(three)), Option.none())
          assert.deepStrictEqual(yield* store.usage(), { bodies: 3, bytes: 12 })
          yield* assertWithin(store, ["a", "other"])
        })
    )

    it.scoped("past storeMaxBytes the oldest bodies are evicted first, with every thread's reference to them", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open({ bodyMaxBytes: 100, threadMaxBytes: 100, storeMaxBytes: 10 }))
        const [one, two, three] = [bytes("1111"), bytes("2222"), bytes("3333")]
        yield* store.put("x", one, meta("u:1"))
        yield* store.put("y", one, meta("u:1"))
        yield* store.put("y", two, meta("u:2"))
        yield* store.put("z", three, meta("u:3"))
        assert.deepStrictEqual(yield* store.get(sha256(one)), Option.none())
        assert.deepStrictEqual(yield* store.list("x"), [])
        assert.deepStrictEqual(
          (yield* store.list("y")).map((ref) => ref.uri),
          ["u:2"]
        )
        assert.deepStrictEqual(yield* store.usage(), { bodies: 2, bytes: 8 })
        // Putting 2 again makes it the newest: 3 goes before it.
        yield* store.put("x", two, meta("u:2"))
        yield* store.put("x", bytes("55555"), meta("u:5"))
        assert.deepStrictEqual(yield* store.get(sha256(three)), Option.none())
        assert.deepStrictEqual(yield* store.get(sha256(two)), Option.some(two))
        assert.deepStrictEqual(yield* store.usage(), { bodies: 2, bytes: 9 })
      })
    )

    it.scoped("no bound is exceeded after any put of a long mixed sequence", () =>
      Effect.gen(function* () {
        const bounds = { bodyMaxBytes: 40, threadMaxBytes: 90, storeMaxBytes: 150 }
        const store = yield* build((yield* backend).open(bounds))
        const threads = ["t0", "t1", "t2", "t3"]
        // A fixed pseudo-random sequence: sizes 0 to 49 (some over bodyMaxBytes), bodies often repeated.
        let seed = 7
        const next = (n: number) => {
          seed = (seed * 1103515245 + 12345) % 2147483648
          return seed % n
        }
        for (let i = 0; i < 60; i++) {
          const threadId = threads[next(threads.length)]!
          const size = next(50)
          const body = bytes(String.fromCharCode(97 + next(3)).repeat(size))
          const put = yield* store.put(threadId, body, meta(`u:${i}`))
          assert.strictEqual(put.kept, size <= bounds.bodyMaxBytes)
          if (put.kept) assert.deepStrictEqual(yield* store.get(put.digest), Option.some(body))
          yield* assertWithin(store, threads)
        }
      })
    )

    it.scoped("dropThread releases the thread's bodies: those no other thread holds are deleted", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open(roomy))
        const [shared, own] = [bytes("shared"), bytes("own")]
        yield* store.put("a", shared, meta("u:s"))
        yield* store.put("a", own, meta("u:o"))
        yield* store.put("b", shared, meta("u:s"))
        assert.strictEqual(yield* store.dropThread("a"), 2)
        assert.deepStrictEqual(yield* store.list("a"), [])
        assert.deepStrictEqual(yield* store.get(sha256(own)), Option.none())
        assert.deepStrictEqual(yield* store.get(sha256(shared)), Option.some(shared))
        assert.deepStrictEqual(yield* store.usage(), { bodies: 1, bytes: 6 })
        assert.strictEqual(yield* store.dropThread("a"), 0)
        assert.strictEqual(yield* store.dropThread("b"), 1)
        assert.deepStrictEqual(yield* store.usage(), { bodies: 0, bytes: 0 })
        // The thread can hold bodies again afterwards.
        assert.isTrue((yield* store.put("a", own, meta("u:o"))).kept)
        assert.deepStrictEqual(yield* store.get(sha256(own)), Option.some(own))
      })
    )

    it.scoped("release drops the thread's references to the given bodies only; a body another thread holds stays", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open(roomy))
        const [shared, own, kept] = [bytes("shared"), bytes("own"), bytes("kept")]
        yield* store.put("a", shared, meta("u:s"))
        yield* store.put("a", own, meta("u:o"))
        yield* store.put("a", kept, meta("u:k"))
        yield* store.put("b", shared, meta("u:s"))
        // a digest named twice and one the thread does not hold count once and not at all
        assert.strictEqual(
          yield* store.release("a", [sha256(shared), sha256(own), sha256(own), sha256(bytes("never"))]),
          2
        )
        assert.deepStrictEqual(
          (yield* store.list("a")).map((ref) => ref.uri),
          ["u:k"]
        )
        assert.deepStrictEqual(yield* store.get(sha256(own)), Option.none())
        assert.deepStrictEqual(yield* store.get(sha256(shared)), Option.some(shared))
        assert.deepStrictEqual(yield* store.get(sha256(kept)), Option.some(kept))
        assert.deepStrictEqual(yield* store.usage(), { bodies: 2, bytes: 10 })
        assert.strictEqual(yield* store.release("a", []), 0)
      })
    )

    it.scoped("concurrent puts of many threads (same and different bodies) all land, within the bounds", () =>
      Effect.gen(function* () {
        const b = yield* backend
        // Two stores on the same storage where it is shared (the SQL backends), as two processes.
        const first = yield* build(b.open({ bodyMaxBytes: 100, threadMaxBytes: 60, storeMaxBytes: 200 }))
        const second = options.persistent
          ? yield* build(b.open({ bodyMaxBytes: 100, threadMaxBytes: 60, storeMaxBytes: 200 }))
          : first
        const puts = Array.from({ length: 40 }, (_, i) => ({
          store: i % 2 === 0 ? first : second,
          threadId: `t${i % 5}`,
          body: bytes(`body-${i % 8}-`.repeat(2))
        }))
        const results = yield* Effect.all(
          puts.map((p, i) => p.store.put(p.threadId, p.body, meta(`u:${i}`))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          results,
          puts.map((p) => ({ digest: sha256(p.body), size: 14, kept: true }))
        )
        yield* assertWithin(first, ["t0", "t1", "t2", "t3", "t4"])
        const usage = yield* first.usage()
        // Every body a thread holds is stored, once.
        const held = new Set<string>()
        for (const threadId of ["t0", "t1", "t2", "t3", "t4"]) {
          for (const ref of yield* first.list(threadId)) {
            held.add(ref.digest)
            assert.isTrue(Option.isSome(yield* second.get(ref.digest)))
          }
        }
        assert.deepStrictEqual(usage, { bodies: held.size, bytes: held.size * 14 })
        assert.isAtMost(usage.bodies, 8)
      })
    )

    it.scoped("bounds that are not whole numbers of bytes are refused with reason invalid", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(build((yield* backend).open({ ...roomy, threadMaxBytes: -1 })))
        assert.deepStrictEqual(
          { reason: error.reason, message: error.message },
          {
            reason: "invalid",
            message: "cannot open the body store: threadMaxBytes must be a whole number of bytes, 0 or more (got -1)"
          }
        )
      })
    )

    it.scoped("a whole [changes] table opens the store: its other keys (seconds, tries) are not bounds", () =>
      Effect.gen(function* () {
        const changes = { ...Config.changesDefaults, verifyPushSec: 0.5, bodyMaxBytes: 1024 }
        const store = yield* build((yield* backend).open(changes))
        assert.deepStrictEqual(store.bounds, {
          bodyMaxBytes: 1024,
          threadMaxBytes: Config.changesDefaults.threadMaxBytes,
          storeMaxBytes: Config.changesDefaults.storeMaxBytes
        })
      })
    )

    it.scoped("the default bounds are those of [changes]: 4 MiB, 64 MiB, 512 MiB", () =>
      Effect.gen(function* () {
        const store = yield* build((yield* backend).open())
        assert.deepStrictEqual(store.bounds, {
          bodyMaxBytes: 4 * 1024 * 1024,
          threadMaxBytes: 64 * 1024 * 1024,
          storeMaxBytes: 512 * 1024 * 1024
        })
        const big = new Uint8Array(4 * 1024 * 1024 + 1)
        assert.isFalse((yield* store.put("a", big, meta("u:big"))).kept)
        assert.isTrue((yield* store.put("a", big.subarray(1), meta("u:4MiB"))).kept)
        assert.deepStrictEqual(yield* store.get(sha256(big.subarray(1))), Option.some(big.slice(1)))
      })
    )

    const reopen = "bodies and references survive closing the store and opening it again"
    if (!options.persistent) {
      console.warn(`skipped: ${reopen} (does not apply: the ${name} layer keeps nothing across a restart)`)
    }
    it.scoped.skipIf(!options.persistent)(
      options.persistent ? reopen : `${reopen} (does not apply: the ${name} layer keeps nothing across a restart)`,
      () =>
        Effect.gen(function* () {
          const b = yield* backend
          const scope = yield* Scope.make()
          const first = yield* build(b.open(roomy)).pipe(Scope.extend(scope))
          const body = bytes("kept across a restart")
          yield* first.put("a", body, meta("file:///r.txt", "text/plain"))
          yield* first.put("a", bytes("second"), meta("file:///s.txt"))
          yield* Scope.close(scope, Exit.void)

          const again = yield* build(b.open({ ...roomy, threadMaxBytes: 30 }))
          assert.deepStrictEqual(yield* again.get(sha256(body)), Option.some(body))
          assert.deepStrictEqual(yield* again.list("a"), [
            { digest: sha256(body), size: 21, uri: "file:///r.txt", mimeType: "text/plain" },
            { digest: sha256(bytes("second")), size: 6, uri: "file:///s.txt" }
          ])
          // The order of the puts survives too: the oldest goes first under the reopened store's bound.
          yield* again.put("a", bytes("third"), meta("file:///t.txt"))
          assert.deepStrictEqual(
            (yield* again.list("a")).map((ref) => ref.uri),
            ["file:///s.txt", "file:///t.txt"]
          )
        })
    )
  })
