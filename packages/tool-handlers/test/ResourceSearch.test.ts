/**
 * Search across every server's resources: ranking on the labelled queries of the fixture catalog, the
 * access gate and resource rules, list_changed refresh, servers failing or hanging while indexing,
 * the paging guards and the `[search]` bounds, and 50,000 resources.
 */
import { assert, describe, it } from "@effect/vitest"
import { catalogSpec, labelledQueries, searchCatalog } from "@mcp-resources/fixtures"
import { Config, Errors } from "@mcp-resources/protocol"
import { Effect, Fiber, TestClock } from "effect"
import { ResourceSearch } from "../src/index.js"
import { type HarnessOptions, harness, type ServerSetup, settle, untilSleeping } from "./utils/harness.js"

const catalog = searchCatalog()

const catalogServers = (): Record<string, ServerSetup> =>
  Object.fromEntries(Object.entries(catalog).map(([name, server]) => [name, { spec: catalogSpec(name, server) }]))

const searching = (servers: Record<string, ServerSetup>, options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const h = yield* harness(servers, options)
    const search = yield* ResourceSearch.make({ updates: h.client.updates })
    return { ...h, search }
  })

const keyOf = (match: ResourceSearch.Match) => `${match.server} ${match.uri ?? match.uriTemplate}`

describe("ResourceSearch", () => {
  it.scoped("every labelled query finds its entry in the top 5 (exact ones first)", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers())
      for (const labelled of labelledQueries) {
        const result = yield* search.search(ctx, { query: labelled.query, limit: 5 })
        const keys = result.matches.map(keyOf)
        const expected = `${labelled.server} ${labelled.key}`
        assert.include(keys, expected, `${labelled.kind} query "${labelled.query}" → ${keys.join(", ")}`)
        if (labelled.kind === "exact") assert.strictEqual(keys[0], expected, labelled.query)
      }
    })
  )

  it.scoped("a match has the listed fields, a description excerpt and a score; templates give uriTemplate", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers())
      const result = yield* search.search(ctx, { query: "disk space alerts", limit: 1 })
      assert.deepStrictEqual(result.indexing, [])
      assert.deepStrictEqual(result.failures, [])
      const [match] = result.matches
      assert.deepStrictEqual(
        { ...match, score: undefined },
        {
          server: "docs",
          uri: "runbook://ops/disk-space-alerts",
          name: "disk-space-alerts",
          title: "Disk space alerts runbook",
          mimeType: "text/markdown",
          description: "What to do when a volume passes 90% usage: find the largest directories and rotate logs.",
          score: undefined
        }
      )
      assert.isAbove(match?.score ?? 0, 0)
      const template = yield* search.search(ctx, { query: "weather forecast", limit: 1 })
      assert.strictEqual(template.matches[0]?.uriTemplate, "weather://forecast/{city}?days={days}")
      assert.isUndefined(template.matches[0]?.uri)
    })
  )

  it.scoped("URIs and names are split on / : . _ - ? = & and camelCase", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers())
      const top = (query: string) =>
        Effect.map(search.search(ctx, { query, limit: 1 }), (r) => (r.matches[0] ? keyOf(r.matches[0]) : ""))
      assert.strictEqual(yield* top("dashboards"), "files file:///srv/exports/grafana_dashboards.json")
      assert.strictEqual(yield* top("exports grafana"), "files file:///srv/exports/grafana_dashboards.json")
      assert.strictEqual(yield* top("brand"), "files file:///srv/design/brandGuidelines.pdf")
      assert.strictEqual(yield* top("forecast days"), "metrics weather://forecast/{city}?days={days}")
    })
  )

  it.scoped("limit defaults to 10, server and mimeType filter, scores never increase", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers())
      const all = yield* search.search(ctx, { query: "latency" })
      assert.strictEqual(all.matches.length, ResourceSearch.defaultLimit)
      for (let i = 1; i < all.matches.length; i++) {
        assert.isAtMost(all.matches[i]?.score ?? 0, all.matches[i - 1]?.score ?? 0)
      }
      const tickets = yield* search.search(ctx, { query: "latency", server: "tickets", limit: 50 })
      assert.strictEqual(tickets.matches.length, 50)
      assert.isTrue(tickets.matches.every((m) => m.server === "tickets"))
      const csv = yield* search.search(ctx, { query: "latency", mimeType: "text/csv", limit: 50 })
      assert.isAbove(csv.matches.length, 0)
      assert.isTrue(csv.matches.every((m) => m.mimeType === "text/csv"))
    })
  )

  it.scoped("arguments are refused with clear messages", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers())
      const refusal = (request: ResourceSearch.Request) =>
        Effect.map(Effect.flip(search.search(ctx, request)), (e) => {
          assert.instanceOf(e, Errors.ParameterError)
          return e.message
        })
      assert.strictEqual(yield* refusal({ query: "  " }), "query must be provided")
      assert.strictEqual(yield* refusal({ query: "x", limit: 0 }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(yield* refusal({ query: "x", limit: 51 }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(yield* refusal({ query: "x", limit: 2.5 }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(yield* refusal({ query: "x", server: "nope" }), "unknown MCP server 'nope'")
    })
  )

  it.scoped("a resource a rule hides is never found; the thread's deny adds to the config's", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(catalogServers(), {
        config: { resources: { deny: ["runbook://security/**"] } }
      })
      const hidden = yield* search.search(ctx, { query: "certificate rotation" })
      assert.isFalse(hidden.matches.some((m) => m.uri === "runbook://security/tls-certificate-rotation"))
      const visible = yield* search.search(ctx, { query: "disk space alerts", limit: 1 })
      assert.strictEqual(visible.matches[0]?.uri, "runbook://ops/disk-space-alerts")
      const denied = yield* search.search(
        { ...ctx, resourceDeny: ["runbook://ops/**"] },
        { query: "disk space alerts", limit: 50 }
      )
      assert.isFalse(denied.matches.some((m) => m.uri?.startsWith("runbook://ops/") === true))
      const templates = yield* search.search(
        { ...ctx, resourceDeny: ["weather://**"] },
        { query: "weather forecast", limit: 50 }
      )
      assert.isFalse(templates.matches.some((m) => m.uriTemplate?.startsWith("weather://") === true))
    })
  )

  it.scoped("the access gate keeps the apps server out of the search", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(
        { codex_apps: { spec: catalogSpec("codex_apps", catalog.docs ?? { resources: [], templates: [] }) } },
        { orchestratorMcpEnabled: false }
      )
      const result = yield* search.search(ctx, { query: "disk space alerts" })
      assert.deepStrictEqual(result.matches, [])
      const refused = yield* Effect.flip(search.search(ctx, { query: "disk", server: "codex_apps" }))
      assert.strictEqual(refused.message, "MCP server 'codex_apps' is disabled by `orchestrator.mcp.enabled`")
    })
  )

  it.scoped("a list_changed refreshes the server's part of the index", () =>
    Effect.gen(function* () {
      const spec = catalogSpec("live", { resources: [{ uri: "memo://old", name: "old-memo" }], templates: [] })
      const { ctx, search, fixtures } = yield* searching({ live: { spec } })
      const before = yield* search.search(ctx, { query: "zeppelin" })
      assert.deepStrictEqual(before.matches, [])
      // the fixture answers from the same page objects: change the list, then tell the client
      const page = spec.resourcePages?.[0]?.result as { resources: Array<unknown> }
      page.resources.push({ uri: "memo://zeppelin", name: "zeppelin-memo", title: "Zeppelin memo" })
      yield* Effect.promise(() => fixtures.live?.notify("notifications/resources/list_changed") ?? Promise.resolve())
      yield* settle(200)
      const after = yield* search.search(ctx, { query: "zeppelin" })
      assert.deepStrictEqual(after.matches.map(keyOf), ["live memo://zeppelin"])
    })
  )

  it.scoped("the index is refreshed once the list TTL passed", () =>
    Effect.gen(function* () {
      const spec = catalogSpec("live", { resources: [{ uri: "memo://old", name: "old-memo" }], templates: [] })
      const { ctx, search } = yield* searching({ live: { spec } })
      assert.deepStrictEqual((yield* search.search(ctx, { query: "airship" })).matches, [])
      const page = spec.resourcePages?.[0]?.result as { resources: Array<unknown> }
      page.resources.push({ uri: "memo://airship", name: "airship-memo" })
      assert.deepStrictEqual((yield* search.search(ctx, { query: "airship" })).matches, [])
      yield* TestClock.adjust("60 seconds")
      const after = yield* search.search(ctx, { query: "airship" })
      assert.deepStrictEqual(after.matches.map(keyOf), ["live memo://airship"])
    })
  )

  it.scoped("a server that fails while indexing is reported; the others are searchable", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching({
        ...catalogServers(),
        broken: { spec: { resourcePages: [{ error: { code: -32603, message: "index unavailable" } }] } },
        down: { failWith: "connection refused" }
      })
      const result = yield* search.search(ctx, { query: "disk space alerts", limit: 1 })
      assert.strictEqual(result.matches[0]?.uri, "runbook://ops/disk-space-alerts")
      assert.deepStrictEqual(result.indexing, [])
      assert.deepStrictEqual(
        result.failures.map((f) => f.server),
        ["broken", "down"]
      )
      assert.include(result.failures[0]?.error, "index unavailable")
      assert.include(result.failures[1]?.error, "MCP server 'down' is failed")
    })
  )

  it.scoped("a server that hangs while indexing: the search answers at its budget and names it", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching({
        ...catalogServers(),
        slow: { spec: { resourcePages: [{ hang: true }] } }
      })
      // (its budget then ends at a time no connection timer shares: they started at 0)
      yield* TestClock.adjust("1 millis")
      const fiber = yield* Effect.fork(search.search(ctx, { query: "disk space alerts", limit: 1 }))
      // the search waits for the slow server at most its budget: once it does, the budget passes
      yield* untilSleeping((yield* TestClock.currentTimeMillis) + ResourceSearch.searchWaitMillis)
      yield* TestClock.adjust(ResourceSearch.searchWaitMillis)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.matches[0]?.uri, "runbook://ops/disk-space-alerts")
      assert.deepStrictEqual(result.indexing, ["slow"])
      // the build gives up at `[search] build_timeout_sec`; the next search reports the failure
      yield* TestClock.adjust(`${Config.searchDefaults.buildTimeoutSec} seconds`)
      yield* settle(50)
      const later = yield* search.search(ctx, { query: "disk space alerts", limit: 1 })
      assert.deepStrictEqual(later.indexing, [])
      assert.strictEqual(later.failures[0]?.server, "slow")
    })
  )

  it.scoped("paging guards: a repeated cursor keeps the pages before it and is reported", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching({
        loop: {
          spec: {
            resourcePages: [
              { cursor: null, result: { resources: [{ uri: "memo://first", name: "first" }], nextCursor: "a" } },
              { cursor: "a", result: { resources: [{ uri: "memo://second", name: "second" }], nextCursor: "a" } }
            ]
          }
        }
      })
      const result = yield* search.search(ctx, { query: "second" })
      assert.deepStrictEqual(result.matches.map(keyOf), ["loop memo://second"])
      assert.strictEqual(result.failures[0]?.error, "resources/list returned a repeated pagination cursor")
    })
  )

  it.scoped("[search] max_resources cuts a set's index and says which servers were cut", () =>
    Effect.gen(function* () {
      const { ctx, search } = yield* searching(
        { docs: { spec: catalogSpec("docs", catalog.docs ?? { resources: [], templates: [] }) } },
        { config: { search: { maxResources: 250, buildTimeoutSec: 30 } } }
      )
      const result = yield* search.search(ctx, { query: "latency", limit: 50 })
      assert.deepStrictEqual(result.truncated, ["docs"])
      assert.deepStrictEqual(result.failures, [])
      // the planted entries come first in the list: they are inside the bound
      const planted = yield* search.search(ctx, { query: "disk space alerts", limit: 1 })
      assert.strictEqual(planted.matches[0]?.uri, "runbook://ops/disk-space-alerts")
    })
  )

  it.scoped(
    "50,000 resources over five servers are indexed without error",
    () =>
      Effect.gen(function* () {
        const big = searchCatalog(7, 10)
        const servers: Record<string, ServerSetup> = {}
        for (const [name, server] of Object.entries(big)) {
          servers[name] = { spec: catalogSpec(name, server, 1000) }
        }
        servers.extra = {
          spec: catalogSpec(
            "extra",
            {
              resources: Array.from({ length: 10_000 }, (_, i) => ({ uri: `extra://item/${i}`, name: `item-${i}` })),
              templates: []
            },
            1000
          )
        }
        const { ctx, search } = yield* searching(servers)
        const result = yield* search.search(ctx, { query: "kubernetes drain", limit: 5 })
        assert.deepStrictEqual(result.failures, [])
        assert.deepStrictEqual(result.truncated, [])
        assert.strictEqual(result.matches[0]?.uri, "runbook://ops/kubernetes-node-drain")
        const extra = yield* search.search(ctx, { query: "item-49999 item", server: "extra", limit: 1 })
        assert.strictEqual(extra.matches[0]?.server, "extra")
      }),
    120_000
  )
})
