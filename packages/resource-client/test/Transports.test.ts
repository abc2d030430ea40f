/**
 * The transport contract (TransportSuite.ts) over the transports served in this process, each in both
 * protocol eras: in-memory (the SDK's linked pair, served by its era entry), streamable HTTP and
 * HTTP+SSE (servers on 127.0.0.1). stdio runs in TransportsStdio.test.ts (a file of its own, so that
 * its child processes start while these run).
 */
import { Effect } from "effect"
import { McpTransport } from "../src/index.js"
import { allCases, type Transport, transportSuite } from "./TransportSuite.js"
import { connectContractInMemory, startContractHttp, startContractSse } from "./utils/contractServer.mjs"

const inMemory: Transport = {
  name: "in-memory",
  layer: McpTransport.layerMemory,
  serve: (era) =>
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => connectContractInMemory(era)),
        (fixture) => Effect.promise(() => fixture.close())
      ),
      (fixture) => ({ _tag: "memory", connect: fixture.connect })
    ),
  closedReason: "connection closed"
}

const streamableHttp: Transport = {
  name: "streamable HTTP",
  layer: McpTransport.layer,
  serve: (era) =>
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startContractHttp(era)),
        (fixture) => Effect.promise(() => fixture.close())
      ),
      (fixture) => ({ _tag: "http", url: fixture.url, httpHeaders: {} })
    ),
  closedReason: "connection closed: fetch failed (ECONNREFUSED)"
}

const sse: Transport = {
  name: "HTTP+SSE",
  layer: McpTransport.layer,
  serve: () =>
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startContractSse()),
        (fixture) => Effect.promise(() => fixture.close())
      ),
      (fixture) => ({ _tag: "http", url: fixture.url, httpHeaders: {}, sse: true })
    ),
  closedReason: "connection closed: the SSE stream ended",
  skip: { modern: allCases("HTTP+SSE is a transport of the initialize era; 2026-07-28 has none") }
}

for (const transport of [inMemory, streamableHttp, sse]) {
  for (const era of ["legacy", "modern"] as const) transportSuite(transport, era)
}
