/**
 * The transport contract (TransportSuite.ts) over every transport, each in both protocol eras:
 * in-memory (the SDK's linked pair, served by its era entry), stdio (a child process) and streamable
 * HTTP (a server in this process on 127.0.0.1).
 */
import { Effect } from "effect"
import { McpTransport } from "../src/index.js"
import { allCases, type Transport, transportSuite } from "./TransportSuite.js"
import {
  connectContractInMemory,
  contractStdioCommand,
  startContractHttp,
  startContractSse
} from "./utils/contractServer.mjs"

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

const stdio: Transport = {
  name: "stdio",
  layer: McpTransport.layer,
  serve: (era) => Effect.succeed({ _tag: "stdio", ...contractStdioCommand(era), env: {} }),
  closedReason: "connection closed (the process exited with code 3)"
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

for (const transport of [inMemory, stdio, streamableHttp, sse]) {
  for (const era of ["legacy", "modern"] as const) transportSuite(transport, era)
}
