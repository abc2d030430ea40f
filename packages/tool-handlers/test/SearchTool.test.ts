/**
 * `search_mcp_resources` of the extended profile (issue #45) over the fixture catalog: ranking, the
 * filters and `limit`, argument refusals without items, the resource rules and the access gate,
 * servers still indexing named in the output, a context without a search service, and the aggregate
 * `list_mcp_resources` that points to the search when it does not fit in one output.
 */
import { assert, describe, it } from "@effect/vitest"
import { catalogSpec, labelledQueries, searchCatalog } from "@mcp-resources/fixtures"
import { Messages, type ToolHook } from "@mcp-resources/protocol"
import { Effect, Fiber, Layer, Ref, TestClock } from "effect"
import { Extended, LifecycleSink, Profile, ResourceSearch, ToolHandlers, ToolHooks } from "../src/index.js"
import { type HarnessOptions, harness, resources, type ServerSetup, untilSleeping } from "./utils/harness.js"

const catalog = searchCatalog()

const catalogServers = (): Record<string, ServerSetup> =>
  Object.fromEntries(Object.entries(catalog).map(([name, server]) => [name, { spec: catalogSpec(name, server) }]))

/** An extended context with a search service of its own. */
const searching = (servers: Record<string, ServerSetup>, options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const h = yield* harness(servers, options)
    const search = yield* ResourceSearch.make({ updates: h.client.updates })
    const ctx: ToolHandlers.ToolContext = { ...h.ctx, profile: "extended", search }
    return { ...h, ctx }
  })

const withRecorder = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, LifecycleSink.layerRecorder)

const call = (ctx: ToolHandlers.ToolContext, args: unknown, name = "search_mcp_resources") =>
  ToolHandlers.callTool(ctx, { callId: "s-1", name, arguments: JSON.stringify(args) }).pipe(
    Effect.provide(LifecycleSink.layerNoop)
  )

interface Output {
  readonly matches: ReadonlyArray<ResourceSearch.Match>
  readonly indexing: ReadonlyArray<string>
  readonly failures?: ReadonlyArray<ResourceSearch.Failure>
}

const search = (ctx: ToolHandlers.ToolContext, args: unknown) =>
  Effect.map(call(ctx, args), (out) => {
    assert.isTrue(out.success, out.output)
    return JSON.parse(out.output) as Output
  })

const keyOf = (match: ResourceSearch.Match) => `${match.server} ${match.uri ?? match.uriTemplate}`

describe("search_mcp_resources", () => {
  it.scoped("every labelled query of the catalog finds its entry in the top 5", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      for (const labelled of labelledQueries) {
        const output = yield* search(ctx, { query: labelled.query, limit: 5 })
        const keys = output.matches.map(keyOf)
        assert.include(keys, `${labelled.server} ${labelled.key}`, `${labelled.kind} "${labelled.query}"`)
      }
    })
  )

  it.scoped("the output is the search's JSON: matches with their fields, then indexing", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      const out = yield* call(ctx, { query: "disk space alerts", limit: 1 })
      assert.match(
        out.output,
        /^\{"matches":\[\{"server":"docs","uri":"runbook:\/\/ops\/disk-space-alerts","name":"disk-space-alerts","title":"Disk space alerts runbook","mimeType":"text\/markdown","description":"What to do when a volume passes 90% usage: find the largest directories and rotate logs\.","score":\d+(\.\d+)?\}\],"indexing":\[\]\}$/
      )
    })
  )

  it.scoped("server, mimeType and limit are honoured; limit defaults to 10", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      assert.strictEqual((yield* search(ctx, { query: "latency" })).matches.length, 10)
      const tickets = yield* search(ctx, { query: "latency", server: "tickets", limit: 50 })
      assert.strictEqual(tickets.matches.length, 50)
      assert.isTrue(tickets.matches.every((m) => m.server === "tickets"))
      const csv = yield* search(ctx, { query: "latency", mimeType: "text/csv", limit: 3 })
      assert.strictEqual(csv.matches.length, 3)
      assert.isTrue(csv.matches.every((m) => m.mimeType === "text/csv"))
    })
  )

  it.scoped("refused arguments: the exact messages, no items", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      const refused = (args: unknown) =>
        withRecorder(
          Effect.gen(function* () {
            const out = yield* ToolHandlers.callTool(ctx, {
              callId: "bad",
              name: "search_mcp_resources",
              arguments: JSON.stringify(args)
            })
            assert.isFalse(out.success)
            assert.deepStrictEqual(yield* LifecycleSink.recorded, [])
            return out.output
          })
        )
      assert.strictEqual(yield* refused({}), 'failed to parse function arguments: missing required field "query"')
      assert.strictEqual(yield* refused({ query: " " }), "query must be provided")
      assert.strictEqual(
        yield* refused({ query: 3 }),
        'failed to parse function arguments: field "query" must be a string, got number'
      )
      assert.strictEqual(yield* refused({ query: "x", limit: 51 }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(yield* refused({ query: "x", limit: 0 }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(yield* refused({ query: "x", limit: "5" }), "limit must be a whole number from 1 to 50")
      assert.strictEqual(
        yield* refused({ query: "x", mimeType: 1 }),
        'failed to parse function arguments: field "mimeType" must be a string, got number'
      )
      // an unknown server is a failure of the call (its items say so), as in listing
      const unknown = yield* withRecorder(
        Effect.zip(
          ToolHandlers.callTool(ctx, {
            callId: "u",
            name: "search_mcp_resources",
            arguments: '{"query":"x","server":"nope"}'
          }),
          LifecycleSink.recorded
        )
      )
      assert.deepStrictEqual(unknown[0], { output: Messages.unknownServer("nope"), success: false })
      assert.deepStrictEqual(
        unknown[1].map((e) => [e.phase, e.item.server, e.item.tool, e.item.status]),
        [
          ["started", "nope", "search_mcp_resources", "inProgress"],
          ["completed", "nope", "search_mcp_resources", "failed"]
        ]
      )
    })
  )

  it.scoped("a resource a rule hides is never found (config rules and the thread's deny)", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers(), { config: { resources: { deny: ["runbook://security/**"] } } })
      const hidden = yield* search(ctx, { query: "certificate rotation", limit: 50 })
      assert.isFalse(hidden.matches.some((m) => m.uri === "runbook://security/tls-certificate-rotation"))
      const denied = yield* search({ ...ctx, resourceDeny: ["runbook://ops/**"] }, { query: "disk space", limit: 50 })
      assert.isFalse(denied.matches.some((m) => m.uri?.startsWith("runbook://ops/") === true))
      const allowed = yield* search(ctx, { query: "disk space alerts", limit: 1 })
      assert.strictEqual(allowed.matches[0]?.uri, "runbook://ops/disk-space-alerts")
    })
  )

  it.scoped("the access gate leaves the apps server out and refuses it by name", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(
        { codex_apps: { spec: catalogSpec("codex_apps", catalog.docs ?? { resources: [], templates: [] }) } },
        { orchestratorMcpEnabled: false }
      )
      assert.deepStrictEqual((yield* search(ctx, { query: "disk space alerts" })).matches, [])
      const refused = yield* call(ctx, { query: "disk", server: "codex_apps" })
      assert.deepStrictEqual(refused, { output: Messages.serverDisabledByOrchestrator("codex_apps"), success: false })
    })
  )

  it.scoped("a server still indexing at the search's budget is named in the output", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching({ ...catalogServers(), slow: { spec: { resourcePages: [{ hang: true }] } } })
      // (its budget then ends at a time no connection timer shares: they started at 0)
      yield* TestClock.adjust("1 millis")
      const fiber = yield* Effect.fork(search(ctx, { query: "disk space alerts", limit: 1 }))
      // the search waits for the slow server at most its budget: once it does, the budget passes
      yield* untilSleeping((yield* TestClock.currentTimeMillis) + ResourceSearch.searchWaitMillis)
      yield* TestClock.adjust(ResourceSearch.searchWaitMillis)
      const output = yield* Fiber.join(fiber)
      assert.strictEqual(output.matches[0]?.uri, "runbook://ops/disk-space-alerts")
      assert.deepStrictEqual(output.indexing, ["slow"])
    })
  )

  it.scoped("without a search service in the context the call builds an index of its own", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(catalogServers())
      const output = yield* search({ ...ctx, profile: "extended" }, { query: "disk space alerts", limit: 1 })
      assert.strictEqual(output.matches[0]?.uri, "runbook://ops/disk-space-alerts")
    })
  )

  it.scoped("hooks run around it as around a list: a deny refuses it, the audit lists its matches", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      const audits = yield* Ref.make<ReadonlyArray<ToolHook.ToolAudit>>([])
      const hooked = (before: ToolHooks.Service["before"]) =>
        ToolHandlers.callTool(ctx, {
          callId: "h1",
          name: "search_mcp_resources",
          arguments: '{"query":"disk space alerts","limit":1}'
        }).pipe(
          Effect.provide(
            Layer.mergeAll(
              LifecycleSink.layerNoop,
              ToolHooks.layer(before === undefined ? {} : { before }),
              Layer.succeed(ToolHooks.ToolAuditLog, { record: (a) => Ref.update(audits, (all) => [...all, a]) })
            )
          )
        )
      const denied = yield* hooked(() => Effect.succeed({ decision: "deny", reason: "no searching" }))
      assert.deepStrictEqual(denied, { output: Messages.policy.hookDenied("no searching"), success: false })
      const allowed = yield* hooked(() => Effect.succeed({ decision: "allow" }))
      assert.isTrue(allowed.success)
      const [deniedAudit, allowedAudit] = yield* Ref.get(audits)
      assert.strictEqual(deniedAudit?.tool, "search_mcp_resources")
      assert.isFalse(deniedAudit?.serverRequest)
      assert.deepStrictEqual(allowedAudit?.listed, ["runbook://ops/disk-space-alerts"])
      assert.isTrue(allowedAudit?.serverRequest)
    })
  )

  it.scoped("not a tool of the codex profile", () =>
    Effect.gen(function* () {
      const { ctx } = yield* searching(catalogServers())
      const codex = { ...ctx, profile: "codex" as const }
      assert.isFalse((yield* ToolHandlers.listTools(codex)).some((t) => t.name === "search_mcp_resources"))
      assert.deepStrictEqual(yield* call(codex, { query: "disk" }), {
        output: Messages.unsupportedCall("search_mcp_resources"),
        success: false
      })
    })
  )
})

describe("an aggregate list_mcp_resources over the budget points to search_mcp_resources", () => {
  const many = (server: string, n: number) =>
    resources(Array.from({ length: n }, (_, i) => ({ uri: `${server}://item/${i}`, name: `item-${i}` })))
  const servers = { alpha: { spec: many("alpha", 300) }, beta: { spec: many("beta", 200) } }
  const truncation = { mode: "bytes", limit: 4000 } as const

  it.scoped("extended: the list is cut and its last line counts the resources and names the tool", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(servers, { config: { truncation } })
      const out = yield* call({ ...ctx, profile: "extended" }, {}, "list_mcp_resources")
      assert.isTrue(out.success)
      const lines = out.output.split("\n")
      assert.strictEqual(lines.at(-1), Extended.messages.aggregateOverflow(500, 2))
      assert.strictEqual(
        lines.at(-1),
        "[500 resources on 2 servers do not fit in one output; search_mcp_resources finds one by name, title, description or URI (or list one server with server)]"
      )
      // the kept text and the line fit in the budget (the marker is beside it, as in every truncation)
      const marker = /…\d+ chars truncated…/.exec(out.output)?.[0] ?? ""
      assert.notStrictEqual(marker, "")
      assert.isAtMost(Buffer.byteLength(out.output) - Buffer.byteLength(marker), Math.ceil(truncation.limit * 1.2))
      // one server's page, and a list that fits, end as before
      const one = yield* call({ ...ctx, profile: "extended" }, { server: "beta" }, "list_mcp_resources")
      assert.notInclude(one.output, "search_mcp_resources")
    })
  )

  it.scoped("a host's profile without the search tool ends where the truncation cuts", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(servers, { config: { truncation } })
      const withoutSearch: Profile.Profile = {
        ...Profile.extended,
        resourceTools: Profile.extended.resourceTools.filter((tool) => tool.spec.name !== "search_mcp_resources")
      }
      const out = yield* call({ ...ctx, profile: withoutSearch }, {}, "list_mcp_resources")
      assert.isTrue(out.success)
      assert.notInclude(out.output, "search_mcp_resources")
      assert.match(out.output, /chars truncated…/)
      const unsupported = yield* call({ ...ctx, profile: withoutSearch }, { query: "item" })
      assert.strictEqual(unsupported.output, Messages.unsupportedCall("search_mcp_resources"))
    })
  )

  it.scoped("a list that fits has no such line", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(servers)
      const out = yield* call({ ...ctx, profile: "extended" }, {}, "list_mcp_resources")
      assert.notInclude(out.output, "search_mcp_resources")
      assert.strictEqual((JSON.parse(out.output) as { resources: Array<unknown> }).resources.length, 500)
    })
  )

  it.scoped("codex: the same list is middle-truncated as before, without the line", () =>
    Effect.gen(function* () {
      const { ctx } = yield* harness(servers, { config: { truncation } })
      const out = yield* call(ctx, {}, "list_mcp_resources")
      assert.notInclude(out.output, "search_mcp_resources")
      assert.match(out.output, /^\{"resources":\[.*chars truncated….*\]\}$/s)
    })
  )
})
