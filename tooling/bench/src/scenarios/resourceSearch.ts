/**
 * Scenario 13, resource search (issue #45): the search catalog of `@mcp-resources/fixtures` at about
 * 10,000 and 100,000 resources (in-memory servers, pages of 1,000). Reported: the index build (the
 * first search, every list page walked), search latency p50/p99 over the labelled queries, heap per
 * indexed entry, recall@5 of the labelled queries against a substring-match baseline (target >= 0.9),
 * and the context bytes a model spends to reach a named resource: one search output against walking
 * the aggregate list.
 */
import {
  type CatalogServer,
  catalogSizes,
  catalogSpec,
  connectInMemory,
  labelledQueries,
  searchCatalog
} from "@mcp-resources/fixtures"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ResourceSearch } from "@mcp-resources/tool-handlers"
import { Effect, Exit, Scope } from "effect"
import { makeStack } from "../internal/fixtures.js"
import { atLeast, atMost, info, type Output, type Result } from "../internal/report.js"
import type { Context } from "../internal/scenario.js"
import { quantileSorted } from "../internal/stats.js"

const baseSize = Object.values(catalogSizes).reduce((a, b) => a + b, 0)

/** Heap plus memory outside it, after a forced GC. */
const memory = (): number => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external
}

/** The substring baseline: entries whose name, title, description or URI contains the whole query, in list order. */
const substringTop5 = (catalog: Record<string, CatalogServer>, query: string): Array<string> => {
  const needle = query.toLowerCase()
  const found: Array<string> = []
  for (const [server, { resources, templates }] of Object.entries(catalog)) {
    for (const item of [
      ...resources.map((r) => ({ ...r, key: r.uri })),
      ...templates.map((t) => ({ ...t, key: t.uriTemplate }))
    ]) {
      const text = [item.name, item.title ?? "", item.description ?? "", item.key].join(" ").toLowerCase()
      if (text.includes(needle)) found.push(`${server} ${item.key}`)
      if (found.length === 5) return found
    }
  }
  return found
}

const measure = async (ctx: Context, total: number): Promise<Array<Result>> => {
  const scale = total / baseSize
  const catalog = searchCatalog(45, scale)
  const fixtures = Object.entries(catalog).map(([name, server]) => ({
    name,
    fixture: connectInMemory(catalogSpec(name, server, 1000))
  }))
  const entries = Object.values(catalog).reduce((n, s) => n + s.resources.length + s.templates.length, 0)
  const stack = await makeStack(fixtures)
  const scope = await Effect.runPromise(Scope.make())
  try {
    const search = await stack.runtime.runPromise(
      Effect.flatMap(ResourceClient.ResourceClient, (client) => ResourceSearch.make({ updates: client.updates })).pipe(
        Scope.extend(scope)
      )
    )
    const run = (query: string, limit = 5) => stack.runtime.runPromise(search.search(stack.ctx, { query, limit }))
    const before = memory()
    const t0 = performance.now()
    const first = await run("warm up")
    const build = performance.now() - t0
    const grown = memory() - before
    if (first.indexing.length > 0 || first.failures.length > 0) {
      throw new Error(`index incomplete: ${JSON.stringify({ indexing: first.indexing, failures: first.failures })}`)
    }
    const rounds = ctx.quick ? 5 : 50
    const samples: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      for (const labelled of labelledQueries) {
        const t = performance.now()
        await run(labelled.query)
        samples.push(performance.now() - t)
      }
    }
    samples.sort((a, b) => a - b)
    let searchHits = 0
    let baselineHits = 0
    let searchBytes = 0
    for (const labelled of labelledQueries) {
      const expected = `${labelled.server} ${labelled.key}`
      const result = await run(labelled.query)
      if (result.matches.some((m) => `${m.server} ${m.uri ?? m.uriTemplate}` === expected)) searchHits++
      if (substringTop5(catalog, labelled.query).includes(expected)) baselineHits++
      searchBytes += Buffer.byteLength(JSON.stringify({ matches: result.matches, indexing: result.indexing }))
    }
    // walking the aggregate list: every server's resources as the model's list output carries them
    const listBytes = Object.entries(catalog).reduce(
      (n, [server, s]) => n + Buffer.byteLength(JSON.stringify({ server, resources: s.resources })),
      0
    )
    const label = `${Math.round(entries / 1000)}k`
    ctx.log(
      `   ${entries} entries: build ${build.toFixed(0)} ms, p50 ${quantileSorted(samples, 0.5).toFixed(2)} ms, p99 ${quantileSorted(samples, 0.99).toFixed(2)} ms, recall@5 ${(searchHits / labelledQueries.length).toFixed(2)} (substring ${(baselineHits / labelledQueries.length).toFixed(2)})`
    )
    return [
      info(`search ${label}: index build (first search)`, "ms", build),
      total <= 10_000
        ? atMost(`search ${label}: latency p50`, "ms", quantileSorted(samples, 0.5), 5)
        : info(`search ${label}: latency p50`, "ms", quantileSorted(samples, 0.5)),
      info(`search ${label}: latency p99`, "ms", quantileSorted(samples, 0.99)),
      info(`search ${label}: memory per entry`, "bytes (heap + external growth / entries)", grown / entries),
      atLeast(`search ${label}: recall@5 (labelled queries)`, "ratio", searchHits / labelledQueries.length, 0.9),
      info(`search ${label}: recall@5 substring baseline`, "ratio", baselineHits / labelledQueries.length),
      info(
        `search ${label}: context bytes to reach a resource`,
        "bytes per search output (mean)",
        searchBytes / labelledQueries.length
      ),
      info(`search ${label}: context bytes of the whole aggregate list`, "bytes", listBytes)
    ]
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await stack.dispose()
    for (const { fixture } of fixtures) await fixture.closeAll()
  }
}

/** (99,900: the catalog's planted entries and templates stay within the default `[search] max_resources`.) */
export const run = async (ctx: Context): Promise<Output> => {
  const results = [...(await measure(ctx, 10_000)), ...(ctx.quick ? [] : await measure(ctx, 99_900))]
  return { rows: [], results, notes: [] }
}
