import { assert, describe, it } from "@effect/vitest"
import { Errors, type Mcp, Messages } from "@mcp-resources/protocol"
import { Effect, Either, Fiber, TestClock } from "effect"
import * as Discovery from "../src/Discovery.js"

type Page =
  | Mcp.ListResourcesResult
  | { readonly error: string }
  | { readonly delaySeconds: number; readonly page: Mcp.ListResourcesResult }
  | "hang"

const skill = (uri: string, skillName: string): Mcp.Resource => ({
  uri,
  name: skillName,
  mimeType: "mcp/skill",
  _meta: { plugin_name: "demo-plugin", skill_name: skillName }
})

const listError = (message: string) =>
  Errors.withContext(Errors.serverError(-32603, message), Messages.requestContext["resources/list"]("codex_apps"))

/** A page source over a list of pages; `cursors` records the cursor of every request. */
const pageSource = (pages: ReadonlyArray<Page>) => {
  const cursors: Array<string | undefined> = []
  const fetchPage: Discovery.FetchPage = (cursor) =>
    Effect.suspend(() => {
      const page = pages[cursors.length]
      cursors.push(cursor)
      if (page === undefined) return Effect.die(new Error("no more pages"))
      if (page === "hang") return Effect.never
      if ("error" in page) return Effect.fail(listError(page.error))
      if ("delaySeconds" in page) return Effect.as(Effect.sleep(`${page.delaySeconds} seconds`), page.page)
      return Effect.succeed(page)
    })
  return { cursors, fetchPage }
}

const truncatedWarning =
  "Orchestrator skill discovery was truncated at 100 visible skills, 1000 hidden skills, or 10 resource pages."

describe("Discovery", () => {
  it.effect("S-1: a third page that fails keeps the first two pages and warns with the whole chain", () =>
    Effect.gen(function* () {
      const source = pageSource([
        { resources: [{ uri: "file:///notes.txt", name: "notes", mimeType: "text/plain" }], nextCursor: "skills-page" },
        { resources: [skill("skill://plugin_demo/deploy", "deploy")], nextCursor: "failing-page" },
        { error: "simulated later-page failure" }
      ])
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.deepStrictEqual(source.cursors, [undefined, "skills-page", "failing-page"])
      assert.deepStrictEqual(
        catalog.skills.map((s) => s.name),
        ["demo-plugin:deploy"]
      )
      assert.deepStrictEqual(catalog.warnings, [
        "Orchestrator skill discovery stopped after 2 resource pages: failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: simulated later-page failure"
      ])
      assert.isFalse(catalog.truncated)
    })
  )

  it.effect("a failing second page says `page` for one received page", () =>
    Effect.gen(function* () {
      const source = pageSource([{ resources: [], nextCursor: "next" }, { error: "later" }])
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.deepStrictEqual(catalog.warnings, [
        "Orchestrator skill discovery stopped after 1 resource page: failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: later"
      ])
    })
  )

  it.effect("S-7: a failing first page fails discovery with the chain", () =>
    Effect.gen(function* () {
      const source = pageSource([{ error: "boom" }])
      const result = yield* Effect.either(Discovery.discover(source.fetchPage))
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.strictEqual(
          result.left.message,
          "failed to list orchestrator skill resources: resources/list failed for `codex_apps`: Mcp error: -32603: boom"
        )
      }
    })
  )

  it.effect("S-12: a new cursor on every page stops after exactly 10 requests and truncates", () =>
    Effect.gen(function* () {
      const pages = Array.from({ length: 12 }, (_, i) => ({
        resources: [skill(`skill://p/s${i}`, `s${i}`)],
        nextCursor: `c${i}`
      }))
      const source = pageSource(pages)
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.strictEqual(source.cursors.length, 10)
      assert.strictEqual(catalog.skills.length, 10)
      assert.isTrue(catalog.truncated)
      assert.deepStrictEqual(catalog.warnings, [truncatedWarning])
    })
  )

  it.effect("a tenth page without a next cursor ends discovery untruncated", () =>
    Effect.gen(function* () {
      const pages: Array<Mcp.ListResourcesResult> = Array.from({ length: 10 }, (_, i) =>
        i === 9 ? { resources: [] } : { resources: [], nextCursor: `c${i}` }
      )
      const source = pageSource(pages)
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.strictEqual(source.cursors.length, 10)
      assert.deepStrictEqual(catalog, { skills: [], warnings: [], truncated: false })
    })
  )

  it.effect("S-13: a repeated cursor stops with the duplicate-cursor warning after 2 requests", () =>
    Effect.gen(function* () {
      const source = pageSource([
        { resources: [skill("skill://p/a", "a")], nextCursor: "same" },
        { resources: [skill("skill://p/b", "b")], nextCursor: "same" },
        { resources: [skill("skill://p/c", "c")] }
      ])
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.strictEqual(source.cursors.length, 2)
      assert.deepStrictEqual(
        catalog.skills.map((s) => s.name),
        ["demo-plugin:a", "demo-plugin:b"]
      )
      assert.deepStrictEqual(catalog.warnings, ["Orchestrator skill resource pagination returned a duplicate cursor."])
      assert.isFalse(catalog.truncated)
    })
  )

  it.effect("an empty next cursor is followed", () =>
    Effect.gen(function* () {
      const source = pageSource([{ resources: [], nextCursor: "" }, { resources: [] }])
      yield* Discovery.discover(source.fetchPage)
      assert.deepStrictEqual(source.cursors, [undefined, ""])
    })
  )

  it.effect("a first page that never answers times out after 10 s of test clock", () =>
    Effect.gen(function* () {
      const source = pageSource(["hang"])
      const fiber = yield* Effect.fork(Effect.either(Discovery.discover(source.fetchPage)))
      yield* TestClock.adjust("9999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result))
        assert.strictEqual(result.left.message, "orchestrator skill discovery timed out after 10s")
    })
  )

  it.effect("one deadline covers every page: a slow later page becomes a warning at 10 s", () =>
    Effect.gen(function* () {
      const source = pageSource([
        { delaySeconds: 6, page: { resources: [skill("skill://p/a", "a")], nextCursor: "next" } },
        { delaySeconds: 6, page: { resources: [skill("skill://p/b", "b")] } }
      ])
      const fiber = yield* Effect.fork(Discovery.discover(source.fetchPage))
      yield* TestClock.adjust("10 seconds")
      const catalog = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        catalog.skills.map((s) => s.name),
        ["demo-plugin:a"]
      )
      assert.deepStrictEqual(catalog.warnings, [
        "Orchestrator skill discovery stopped after 1 resource page: orchestrator skill discovery timed out after 10s"
      ])
    })
  )

  it.effect("pagination warnings come before the truncation and skipped warnings", () =>
    Effect.gen(function* () {
      const visible = Array.from({ length: 101 }, (_, i) => skill(`skill://p/s${i}`, `s${i}`))
      const source = pageSource([
        { resources: [...visible, { uri: "skill://bad", name: "bad", mimeType: "mcp/skill" }], nextCursor: "x" },
        { resources: [], nextCursor: "x" }
      ])
      const catalog = yield* Discovery.discover(source.fetchPage)
      assert.deepStrictEqual(catalog.warnings, [
        "Orchestrator skill resource pagination returned a duplicate cursor.",
        truncatedWarning,
        "Skipped 1 malformed orchestrator skill resources."
      ])
      assert.isTrue(catalog.truncated)
    })
  )
})
