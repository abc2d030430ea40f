import { execFileSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import {
  type Command,
  everythingCommand,
  type FixtureSpec,
  readLog,
  startHttp,
  stdioCommand
} from "@mcp-resources/fixtures"
import { Config, Mcp } from "@mcp-resources/protocol"
import { ConfigProvider, Effect, Either, Exit, Scope } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"
import { awaitStatus } from "./utils/wait.js"

const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

const defaults = { enabled: true, startupTimeoutSec: 30, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

const stdioEntry = (name: string, command: Command, options: Partial<ServerEntry.ServerEntry> = {}) =>
  ({
    name,
    transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
    ...defaults,
    ...options
  }) satisfies ServerEntry.ServerEntry

const setupOf = (servers: ReadonlyArray<ServerEntry.ServerEntry>): ServerEntry.Setup => ({
  config: Config.empty,
  servers
})

/** True while some process has `marker` in its command line. */
const running = (marker: string): boolean =>
  execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .some((line) => line.includes(marker))

/** A client over `setup` in its own scope, closed (and checked) by the caller. */
const openClient = (setup: ServerEntry.Setup) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const client = yield* Scope.extend(ResourceClient.make(setup), scope).pipe(Effect.provide(McpTransport.layer))
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return { client, close: Scope.close(scope, Exit.void) }
  })

const settled = (client: ResourceClient.Service) => Effect.flatMap(client.latest, (set) => set.awaitAllSettled)

const specWith = (name: string, spec: FixtureSpec): FixtureSpec => ({
  name: `${name}-${process.pid}-${Date.now()}`,
  ...spec
})

describe("ResourceClient (stdio and streamable HTTP)", () => {
  it.live("the fixture as a stdio child: lists, reads, and the child ends when the client closes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const logFile = join(mkdtempSync(join(tmpdir(), "rc-stdio-")), "requests.log")
        const command = stdioCommand(
          specWith("stdio", {
            resourcePages: [
              { result: { resources: [{ uri: "memo://1", name: "1" }], nextCursor: "c2" } },
              { cursor: "c2", result: { resources: [{ uri: "memo://2", name: "2" }] } }
            ],
            reads: [{ uri: "test://x", result: { contents: [{ uri: "test://x", text: "hi" }] } }]
          }),
          { logFile }
        )
        const marker = command.args[2]!
        const { client, close } = yield* openClient(setupOf([stdioEntry("srv", command)]))
        yield* settled(client)
        assert.deepStrictEqual(yield* client.servers, [
          { name: "srv", transport: "stdio", status: "ready", protocolVersion: "2025-11-25" }
        ])
        const all = yield* client.listAllResources(() => true)
        assert.deepStrictEqual(
          all.servers[0]?.items.map((r) => r.uri),
          ["memo://1", "memo://2"]
        )
        yield* client.listResources("srv", "c2")
        const read = yield* client.readResource("srv", "test://x")
        assert.deepStrictEqual(read.contents, [{ uri: "test://x", text: "hi" }])
        assert.deepStrictEqual(
          readLog(logFile).filter((r) => r.method.startsWith("resources/")),
          [
            { method: "resources/list" },
            { method: "resources/list", params: { cursor: "c2" } },
            { method: "resources/list", params: { cursor: "c2" } },
            { method: "resources/read", params: { uri: "test://x" } }
          ]
        )
        assert.isTrue(running(marker))
        yield* close
        assert.isFalse(running(marker), "the child process ended")
      })
    )
  )

  it.live("a stdio server that exits at start is failed with its exit code, whatever the era setting", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const exits = { command: process.execPath, args: ["-e", "process.exit(3)"] }
        const killed = { command: process.execPath, args: ["-e", 'process.kill(process.pid, "SIGKILL")'] }
        const { client } = yield* openClient(
          setupOf([
            stdioEntry("auto", exits),
            stdioEntry("legacy", exits, { protocolVersion: "legacy" }),
            stdioEntry("modern", exits, { protocolVersion: "2026-07-28" }),
            stdioEntry("killed", killed)
          ])
        )
        yield* settled(client)
        const exited = "connection closed (the process exited with code 3)"
        assert.deepStrictEqual(
          (yield* client.servers).map((s) => ({ name: s.name, status: s.status, error: s.error })),
          [
            { name: "auto", status: "failed", error: exited },
            { name: "killed", status: "failed", error: "connection closed (the process was killed by SIGKILL)" },
            { name: "legacy", status: "failed", error: exited },
            { name: "modern", status: "failed", error: exited }
          ]
        )
        assert.strictEqual(
          message(yield* Effect.either(client.readResource("auto", "x://a"))),
          `failed to get client: ${exited}`
        )
      })
    )
  )

  it.live("C-2/C-3: a stdio server that exits becomes failed; a reload brings it back", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const spec: FixtureSpec = { resourcePages: [{ result: { resources: [] } }] }
        const crashing = stdioEntry("srv", stdioCommand(specWith("crash", { ...spec, exitAfterMs: 200 })))
        const { client } = yield* openClient(setupOf([crashing]))
        yield* settled(client)
        const status = () => Effect.map(client.servers, (servers) => servers[0]!)
        const current = yield* awaitStatus(client, "srv", (s) => s.status === "failed")
        // the fixture exits with code 1 after becoming ready
        assert.strictEqual(current.error, "connection closed (the process exited with code 1)")
        assert.strictEqual(
          message(yield* Effect.either(client.listResources("srv"))),
          "failed to get client: connection closed (the process exited with code 1)"
        )
        yield* client.reload(setupOf([stdioEntry("srv", stdioCommand(specWith("stable", spec)))]))
        yield* settled(client)
        assert.strictEqual((yield* status()).status, "ready")
        assert.deepStrictEqual(yield* client.listResources("srv"), { resources: [] })
      })
    )
  )

  it.live("a stdio server that never answers: the timeout message, and no process is left behind", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const command = stdioCommand(specWith("hang", { reads: [{ uri: "test://slow", hang: true }] }))
        const marker = command.args[2]!
        const { client, close } = yield* openClient(setupOf([stdioEntry("srv", command, { toolTimeoutSec: 1 })]))
        const result = yield* Effect.either(client.readResource("srv", "test://slow"))
        assert.strictEqual(
          message(result),
          "resources/read failed for `srv` (test://slow): timed out awaiting resources/read after 1s"
        )
        yield* close
        assert.isFalse(running(marker), "the child process ended")
      })
    )
  )

  it.live("a stdio message over max_message_bytes fails the request and the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const command = stdioCommand(
          specWith("big", {
            reads: [{ uri: "test://big", result: { contents: [{ uri: "test://big", text: "x".repeat(5000) }] } }]
          })
        )
        const { client } = yield* openClient(setupOf([stdioEntry("srv", command, { maxMessageBytes: 2000 })]))
        const result = yield* Effect.either(client.readResource("srv", "test://big"))
        assert.strictEqual(message(result), "resources/read failed for `srv` (test://big): message exceeds 2000 bytes")
        const servers = yield* client.servers
        assert.deepStrictEqual(servers[0], {
          name: "srv",
          transport: "stdio",
          status: "failed",
          error: "message exceeds 2000 bytes"
        })
      })
    )
  )

  it.live("a stdio command that does not exist fails at startup with its error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* openClient(
          setupOf([stdioEntry("srv", { command: "/nonexistent/mcp-server-binary", args: [] })])
        )
        yield* settled(client)
        const status = (yield* client.servers)[0]!
        assert.strictEqual(status.status, "failed")
        assert.include(status.error ?? "", "ENOENT")
        assert.isTrue(client.hasServers())
      })
    )
  )

  it.live("streamable HTTP: bearer token from the environment and extra headers on every request", () =>
    Effect.gen(function* () {
      const http = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startHttp({
            resourcePages: [{ result: { resources: [{ uri: "memo://h", name: "h" }] } }],
            reads: [{ uri: "test://x", error: { code: -32002, message: "resource not found: test://x" } }]
          })
        ),
        (fixture) => Effect.promise(() => fixture.close())
      )
      const entry: ServerEntry.ServerEntry = {
        name: "hosted",
        transport: { _tag: "http", url: http.url, bearerTokenEnvVar: "RC_TEST_TOKEN", httpHeaders: { "X-Extra": "1" } },
        ...defaults
      }
      const { client, close } = yield* openClient(setupOf([entry]))
      const page = yield* client.listResources("hosted")
      assert.deepStrictEqual(page.resources, [{ uri: "memo://h", name: "h" }])
      assert.strictEqual(
        message(yield* Effect.either(client.readResource("hosted", "test://x"))),
        "resources/read failed for `hosted` (test://x): Mcp error: -32002: resource not found: test://x"
      )
      assert.isTrue(http.headers.length > 0)
      for (const headers of http.headers) {
        assert.strictEqual(headers.authorization, "Bearer s3cret")
        assert.strictEqual(headers["x-extra"], "1")
      }
      assert.strictEqual(http.sessionCount(), 1)
      yield* close
      // the session ends with the client (the fixture tells when its session closes)
      yield* Effect.promise(() => http.awaitSessions(0))
    }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["RC_TEST_TOKEN", "s3cret"]]))), Effect.scoped)
  )

  it.live("streamable HTTP: a server that goes away marks the server failed; the request fails with the reason", () =>
    Effect.gen(function* () {
      const http = yield* Effect.promise(() =>
        startHttp({ resourcePages: [{ result: { resources: [{ uri: "memo://h", name: "h" }] } }] })
      )
      const entry: ServerEntry.ServerEntry = {
        name: "hosted",
        transport: { _tag: "http", url: http.url, httpHeaders: {} },
        ...defaults
      }
      const { client } = yield* openClient(setupOf([entry]))
      assert.strictEqual((yield* client.listResources("hosted")).resources.length, 1)
      yield* Effect.promise(() => http.close())
      const failed = message(yield* Effect.either(client.listResources("hosted")))
      assert.match(failed, /^resources\/list failed for `hosted`: connection closed: fetch failed/)
      const status = (yield* client.servers).find((s) => s.name === "hosted")
      assert.strictEqual(status?.status, "failed")
      assert.match(status?.error ?? "", /^connection closed: fetch failed/)
      assert.match(
        message(yield* Effect.either(client.listResources("hosted"))),
        /^failed to get client: connection closed: /
      )
    }).pipe(Effect.scoped)
  )

  it.live("streamable HTTP: an unset bearer variable fails startup naming the variable", () =>
    Effect.gen(function* () {
      const http = yield* Effect.acquireRelease(
        Effect.promise(() => startHttp({})),
        (fixture) => Effect.promise(() => fixture.close())
      )
      const entry: ServerEntry.ServerEntry = {
        name: "hosted",
        transport: { _tag: "http", url: http.url, bearerTokenEnvVar: "RC_UNSET_TOKEN", httpHeaders: {} },
        ...defaults
      }
      const { client } = yield* openClient(setupOf([entry]))
      const result = yield* Effect.either(client.listResources("hosted"))
      assert.strictEqual(
        message(result),
        "failed to get client: environment variable RC_UNSET_TOKEN for the bearer token is not set"
      )
      assert.strictEqual(http.headers.length, 0)
    }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())), Effect.scoped)
  )

  it.live("server-everything over stdio: resources, both templates, a text and a blob read", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* openClient(setupOf([stdioEntry("everything", everythingCommand())]))
        yield* settled(client)
        const all = yield* client.listAllResources(() => true)
        assert.deepStrictEqual(all.failures, [])
        assert.isTrue((all.servers[0]?.items.length ?? 0) > 0)
        const templates = yield* client.listAllResourceTemplates(() => true)
        const uriTemplates = templates.servers[0]?.items.map((t) => t.uriTemplate) ?? []
        assert.includeMembers(uriTemplates, [
          "demo://resource/dynamic/text/{resourceId}",
          "demo://resource/dynamic/blob/{resourceId}"
        ])
        const text = yield* client.readResource("everything", "demo://resource/dynamic/text/1")
        assert.isTrue(text.contents.length > 0 && Mcp.isTextContents(text.contents[0]!))
        const blob = yield* client.readResource("everything", "demo://resource/dynamic/blob/1")
        assert.isTrue(blob.contents.length > 0 && "blob" in blob.contents[0]!)
      })
    )
  )
})
