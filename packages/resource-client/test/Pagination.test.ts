import { assert, describe, it } from "@effect/vitest"
import { Errors } from "@mcp-resources/protocol"
import { Effect, Either, Fiber, TestClock } from "effect"
import { Pagination } from "../src/index.js"

type Script = Record<string, { readonly items: ReadonlyArray<string>; readonly next?: string }>

const FIRST = "–"

/** A scripted fetchPage that records the cursor of every fetch (`–` for none). */
const scripted = (script: Script) => {
  const requests: Array<string> = []
  const fetchPage = (cursor: string | undefined) =>
    Effect.sync(() => {
      const key = cursor ?? FIRST
      requests.push(key)
      const page = script[key]!
      return { items: page.items, nextCursor: page.next }
    })
  return { requests, fetchPage }
}

const failureMessage = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

describe("collectPaginated", () => {
  it.effect("G-1: follows an empty-string cursor and stops at the first page without one", () =>
    Effect.gen(function* () {
      const { requests, fetchPage } = scripted({
        [FIRST]: { items: ["first"], next: "" },
        "": { items: ["second"], next: "last" },
        last: { items: ["third"] }
      })
      const items = yield* Pagination.collectPaginated({ method: "resources/list", fetchPage })
      assert.deepStrictEqual(items, ["first", "second", "third"])
      assert.deepStrictEqual(requests, [FIRST, "", "last"])
    })
  )

  it.effect("G-2: a cursor seen before, not consecutively, fails the collection", () =>
    Effect.gen(function* () {
      const { fetchPage } = scripted({
        [FIRST]: { items: [], next: "a" },
        a: { items: [], next: "b" },
        b: { items: [], next: "a" }
      })
      const result = yield* Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage }))
      assert.strictEqual(failureMessage(result), "resources/list returned a repeated pagination cursor")
    })
  )

  it.effect("G-3: stops before page 101 after exactly 100 fetches", () =>
    Effect.gen(function* () {
      let fetches = 0
      const fetchPage = () =>
        Effect.sync(() => {
          fetches += 1
          return { items: [fetches], nextCursor: `c${fetches}` }
        })
      const result = yield* Effect.either(Pagination.collectPaginated({ method: "tools/list", fetchPage }))
      assert.strictEqual(failureMessage(result), "tools/list exceeded the pagination limit of 100 pages")
      assert.strictEqual(fetches, 100)
    })
  )

  it.effect("G-4: one page of 2049 items exceeds the catalog limit", () =>
    Effect.gen(function* () {
      const fetchPage = () => Effect.succeed({ items: Array.from({ length: 2049 }, (_, i) => i) })
      const result = yield* Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage }))
      assert.strictEqual(failureMessage(result), "resources/list exceeded the catalog limit of 2048 items")
    })
  )

  it.effect("G-5: 2048 items then one more exceeds the catalog limit", () =>
    Effect.gen(function* () {
      const fetchPage = (cursor: string | undefined) =>
        Effect.succeed(
          cursor === undefined
            ? { items: Array.from({ length: 2048 }, (_, i) => i), nextCursor: "more" }
            : { items: [1] }
        )
      const result = yield* Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage }))
      assert.strictEqual(failureMessage(result), "resources/list exceeded the catalog limit of 2048 items")
    })
  )

  it.effect("G-6: exactly 2048 items are accepted", () =>
    Effect.gen(function* () {
      const fetchPage = (cursor: string | undefined) =>
        Effect.succeed(
          cursor === undefined
            ? { items: Array.from({ length: 2047 }, (_, i) => i), nextCursor: "more" }
            : { items: [1] }
        )
      const items = yield* Pagination.collectPaginated({ method: "resources/list", fetchPage })
      assert.strictEqual(items.length, 2048)
    })
  )

  it.effect("G-7: a next cursor of 65537 bytes fails after one fetch", () =>
    Effect.gen(function* () {
      const { requests, fetchPage } = scripted({ [FIRST]: { items: [], next: "x".repeat(65537) } })
      const result = yield* Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage }))
      assert.strictEqual(failureMessage(result), "resources/list returned a pagination cursor exceeding 65536 bytes")
      assert.strictEqual(requests.length, 1)
    })
  )

  it.effect("G-8: a next cursor of exactly 65536 bytes is followed", () =>
    Effect.gen(function* () {
      const big = "x".repeat(65536)
      const { requests, fetchPage } = scripted({ [FIRST]: { items: ["a"], next: big }, [big]: { items: ["b"] } })
      const items = yield* Pagination.collectPaginated({ method: "resources/list", fetchPage })
      assert.deepStrictEqual(items, ["a", "b"])
      assert.strictEqual(requests.length, 2)
    })
  )

  it.effect("G-9: a failing page fails the collection with its error unchanged", () =>
    Effect.gen(function* () {
      const error = new Errors.TransportError({ kind: "other", message: "page failed" })
      const result = yield* Effect.either(
        Pagination.collectPaginated({ method: "resources/list", fetchPage: () => Effect.fail(error) })
      )
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) assert.strictEqual(result.left, error)
    })
  )

  it.effect("G-10: without a timeout the deadline is 30 s", () =>
    Effect.gen(function* () {
      const fetchPage = () => Effect.as(Effect.sleep("31 seconds"), { items: [1] })
      const fiber = yield* Effect.fork(
        Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage }))
      )
      yield* TestClock.adjust("31 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(failureMessage(result), "resources/list pagination timed out after 30s")
    })
  )

  it.effect("G-11: the deadline spans all pages, also while a page is being fetched", () =>
    Effect.gen(function* () {
      const requests: Array<string> = []
      const next: Record<string, string> = { [FIRST]: "second", second: "third", third: "fourth", fourth: "fifth" }
      const fetchPage = (cursor: string | undefined) =>
        Effect.gen(function* () {
          const key = cursor ?? FIRST
          requests.push(key)
          yield* Effect.sleep("2 seconds")
          return { items: [key], nextCursor: next[key] }
        })
      const fiber = yield* Effect.fork(
        Effect.either(Pagination.collectPaginated({ method: "tools/list", fetchPage, timeout: "5 seconds" }))
      )
      yield* TestClock.adjust("6 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(failureMessage(result), "tools/list pagination timed out after 5s")
      assert.deepStrictEqual(requests, [FIRST, "second", "third"])
    })
  )

  it.effect("a page timeout that expires together with the deadline reports the deadline", () =>
    Effect.gen(function* () {
      const pageTimeout = new Errors.TransportError({
        kind: "timeout",
        message: "timed out awaiting resources/list after 5s"
      })
      const fetchPage = () =>
        Effect.never.pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => pageTimeout }))
      const fiber = yield* Effect.fork(
        Effect.either(Pagination.collectPaginated({ method: "resources/list", fetchPage, timeout: "5 seconds" }))
      )
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(failureMessage(result), "resources/list pagination timed out after 5s")
    })
  )

  it("bounded pages are given what is left of the deadline, and one that runs out reports the deadline", () =>
    Effect.gen(function* () {
      const given: Array<number> = []
      const next: Record<string, string> = { [FIRST]: "second", second: "third", third: "fourth" }
      // a page that needs 2 s and honours its bound, as a request with that timeout does
      const fetchPage = (cursor: string | undefined, remainingMillis: number) =>
        Effect.gen(function* () {
          given.push(remainingMillis)
          if (remainingMillis < 2000) {
            yield* Effect.sleep(remainingMillis)
            return yield* Effect.fail(new Errors.TransportError({ kind: "timeout", message: "page timed out" }))
          }
          yield* Effect.sleep("2 seconds")
          const key = cursor ?? FIRST
          return { items: [key], nextCursor: next[key] }
        })
      const fiber = yield* Effect.fork(
        Effect.either(
          Pagination.collectPaginated({ method: "resources/list", fetchPage, timeout: "5 seconds", pagesBounded: true })
        )
      )
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(failureMessage(result), "resources/list pagination timed out after 5s")
      assert.deepStrictEqual(given, [5000, 3000, 1000])
    }))
})
