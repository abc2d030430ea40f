/**
 * The three model tools against real servers of both SDK generations and both protocol eras:
 * v2 servers over stdio (default, 2026-07-28 only) and HTTP (sessionful, stateless, POST-only with a
 * GET that answers 405 or 404, 2026-07-28 only), v1 servers over stdio and HTTP, and the installed
 * `@modelcontextprotocol/server-everything` over stdio and streamable HTTP.
 */
import {
  everythingCommand,
  startEverythingHttp,
  startHttp,
  startV2Http,
  stdioCommand,
  v2CatalogSpec,
  v2StdioCommand,
  type Command,
  type V2HttpMode
} from "@mcp-resources/fixtures"
import type { Config } from "@mcp-resources/protocol"
import type { ServerEntry } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import { entryDefaults, everythingSuite, type Expected, type MatrixCase, matrixSuite } from "./ServerMatrix.js"

const stdio = (
  name: string,
  command: Command,
  protocolVersion?: Config.ProtocolVersionSetting
): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  ...entryDefaults,
  ...(protocolVersion === undefined ? {} : { protocolVersion })
})

const http = (name: string, url: string, protocolVersion?: Config.ProtocolVersionSetting): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "http", url, httpHeaders: {} },
  ...entryDefaults,
  ...(protocolVersion === undefined ? {} : { protocolVersion })
})

const v2Http = (mode: V2HttpMode, options: { getStatus?: 404 | 405 } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startV2Http(mode, options)),
    (fixture) => Effect.promise(() => fixture.close())
  )

const modern: Expected = {
  protocolVersion: "2026-07-28",
  notFound: "Mcp error: -32602: Resource not found: v2://missing",
  inputRequired: true,
  // what a v2 server stamps on a 2026-07-28 read result (cache hints and its serverInfo)
  readFields: {
    before: '"ttlMs":0,"cacheScope":"private",',
    after: ',"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"v2-fixture","version":"2.4.0"}}'
  }
}
const legacyV2: Expected = {
  ...modern,
  protocolVersion: "2025-11-25",
  inputRequired: false,
  readFields: { before: "", after: "" }
}
const legacyV1: Expected = {
  protocolVersion: "2025-11-25",
  notFound: "Mcp error: -32002: Resource not found: v2://missing",
  inputRequired: false,
  readFields: { before: "", after: "" }
}

const cases: ReadonlyArray<MatrixCase> = [
  {
    name: "v2_stdio",
    title: "v2 stdio (auto)",
    start: Effect.succeed(stdio("v2_stdio", v2StdioCommand())),
    expected: modern
  },
  {
    name: "v2_stdio_legacy",
    title: "v2 stdio (legacy)",
    start: Effect.succeed(stdio("v2_stdio_legacy", v2StdioCommand(), "legacy")),
    expected: legacyV2
  },
  {
    name: "v2_stdio_modern_only",
    title: "v2 stdio, 2026-07-28 only (auto)",
    start: Effect.succeed(stdio("v2_stdio_modern_only", v2StdioCommand({ modernOnly: true }))),
    expected: modern
  },
  {
    name: "v2_stdio_pinned",
    title: "v2 stdio, 2026-07-28 only (pinned)",
    start: Effect.succeed(stdio("v2_stdio_pinned", v2StdioCommand({ modernOnly: true }), "2026-07-28")),
    expected: modern
  },
  {
    name: "v2_http_sessionful",
    title: "v2 HTTP sessionful (auto)",
    start: Effect.map(v2Http("sessionful"), (f) => http("v2_http_sessionful", f.url)),
    expected: legacyV2
  },
  {
    name: "v2_http_stateless",
    title: "v2 HTTP stateless (auto)",
    start: Effect.map(v2Http("stateless"), (f) => http("v2_http_stateless", f.url)),
    expected: modern
  },
  {
    name: "v2_http_stateless_legacy",
    title: "v2 HTTP stateless (legacy)",
    start: Effect.map(v2Http("stateless"), (f) => http("v2_http_stateless_legacy", f.url, "legacy")),
    expected: legacyV2
  },
  {
    name: "v2_http_post_only_405",
    title: "v2 HTTP POST-only, GET 405 (legacy)",
    start: Effect.map(v2Http("postOnly", { getStatus: 405 }), (f) => http("v2_http_post_only_405", f.url, "legacy")),
    expected: legacyV2
  },
  {
    // issue 15's first failure: a GET answered 404 without any session id is "no stream"
    name: "v2_http_post_only_404",
    title: "v2 HTTP POST-only, GET 404 (legacy)",
    start: Effect.map(v2Http("postOnly", { getStatus: 404 }), (f) => http("v2_http_post_only_404", f.url, "legacy")),
    expected: legacyV2
  },
  {
    name: "v2_http_post_only_auto",
    title: "v2 HTTP POST-only, GET 404 (auto)",
    start: Effect.map(v2Http("postOnly", { getStatus: 404 }), (f) => http("v2_http_post_only_auto", f.url)),
    expected: modern
  },
  {
    name: "v2_http_modern_only",
    title: "v2 HTTP, 2026-07-28 only (auto)",
    start: Effect.map(v2Http("modernOnly"), (f) => http("v2_http_modern_only", f.url)),
    expected: modern
  },
  {
    name: "v1_stdio",
    title: "v1 stdio (auto)",
    start: Effect.succeed(stdio("v1_stdio", stdioCommand(v2CatalogSpec()))),
    expected: legacyV1
  },
  {
    name: "v1_http",
    title: "v1 HTTP sessionful (auto)",
    start: Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startHttp(v2CatalogSpec())),
        (f) => Effect.promise(() => f.close())
      ),
      (f) => http("v1_http", f.url)
    ),
    expected: legacyV1
  }
]

matrixSuite("protocol matrix (v2 and v1 servers, both eras)", cases)

everythingSuite("protocol matrix (@modelcontextprotocol/server-everything)", [
  {
    name: "everything_stdio",
    title: "server-everything stdio (auto)",
    start: Effect.succeed(stdio("everything_stdio", everythingCommand())),
    protocolVersion: "2025-11-25"
  },
  {
    name: "everything_http",
    title: "server-everything streamable HTTP (auto)",
    start: Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startEverythingHttp()),
        (f) => Effect.promise(() => f.close())
      ),
      (f) => http("everything_http", f.url)
    ),
    protocolVersion: "2025-11-25"
  }
])
