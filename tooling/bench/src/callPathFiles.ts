/**
 * How many of our source files one extended `read_mcp_resource` runs (issue #41 asks for at most 25).
 * The app-server runs in this process over its built `dist` (plain Node ESM, nothing transformed); V8's
 * precise coverage (node:inspector) counts the functions that ran during one `tool/call` after a
 * warm-up call (taking the coverage resets the counters). Every file of ours (`packages/*` or `apps/*`,
 * `src` or `dist`) with a function that ran is printed on stdout, then the count. The MCP server is a
 * stdio child: its code is not counted. `--max N` exits 1 when more than N files ran.
 *
 * Run: `pnpm --filter @mcp-resources/bench call-path` (after `pnpm build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AppOptions, JsonRpcServer, MainLayer } from "@mcp-resources/app-server"
import { type FixtureSpec, stdioCommand } from "@mcp-resources/fixtures"
import { Deferred, Duration, Effect, Layer } from "effect"

process.env.MCP_RESOURCES_LOG ??= "error"

const root = fileURLToPath(new URL("../../..", import.meta.url))

/** A script of ours, relative to the repository (undefined for Node's, dependencies' and tests'). */
const ours = (url: string): string | undefined => {
  const path = url.startsWith("file://") ? fileURLToPath(url) : url
  if (!path.startsWith(root) || path.includes("/node_modules/")) return undefined
  const relative = path.slice(root.length)
  return /^(packages|apps)\/[^/]+\/(src|dist)\//.test(relative) ? relative : undefined
}

interface Coverage {
  readonly result: ReadonlyArray<{
    readonly url: string
    readonly functions: ReadonlyArray<{ readonly ranges: ReadonlyArray<{ readonly count: number }> }>
  }>
}

const post = <A>(session: Session, method: string, params?: object): Effect.Effect<A> =>
  Effect.async<A>((resume) => {
    session.post(method, params ?? {}, (error, result) =>
      resume(error === null ? Effect.succeed(result as A) : Effect.die(error))
    )
  })

/** Our files with a function that ran during `effect`. */
const filesRunBy = <A, E, R>(session: Session, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* post<Coverage>(session, "Profiler.takePreciseCoverage")
    yield* effect
    const coverage = yield* post<Coverage>(session, "Profiler.takePreciseCoverage")
    const files = new Set<string>()
    for (const script of coverage.result) {
      const file = ours(script.url)
      if (file !== undefined && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) files.add(file)
    }
    return [...files].sort()
  })

const spec: FixtureSpec = {
  name: "srv",
  reads: [
    { uri: "f://notes.txt", result: { contents: [{ uri: "f://notes.txt", mimeType: "text/plain", text: "notes" }] } }
  ]
}

type Message = { readonly id?: unknown; readonly result?: Record<string, unknown>; readonly error?: unknown }

/** The in-process server with one initialized connection; `request` waits (at most 20 s) for the answer. */
const connect = (dataDir: string) =>
  Effect.gen(function* () {
    const configPath = join(dataDir, "config.json")
    writeFileSync(configPath, JSON.stringify({ mcp_servers: { srv: stdioCommand(spec) } }))
    const options: AppOptions.ServerOptions = {
      configPath,
      dataDir,
      listen: undefined,
      stdio: false,
      allowRemote: false,
      allowInsecureRemote: false,
      tokenEnv: undefined,
      token: undefined,
      allowOrigins: [],
      tls: undefined,
      limits: AppOptions.defaultLimits
    }
    const context = yield* Layer.build(MainLayer.layer(options))
    const dispatcher = yield* Effect.provide(JsonRpcServer.JsonRpcServer, context)
    const pending = new Map<string, Deferred.Deferred<Message>>()
    const session = yield* dispatcher.attach("call-path", (text) => {
      const message = JSON.parse(text) as Message
      const waiting = typeof message.id === "string" ? pending.get(message.id) : undefined
      if (waiting !== undefined && !("method" in message)) Deferred.unsafeDone(waiting, Effect.succeed(message))
    })
    let next = 1
    const request = (method: string, params?: unknown) =>
      Effect.gen(function* () {
        const id = `r-${next++}`
        const answer = yield* Deferred.make<Message>()
        pending.set(id, answer)
        yield* session.receive(JSON.stringify({ id, method, params }))
        const message = yield* Deferred.await(answer).pipe(
          Effect.timeoutFail({ duration: Duration.seconds(20), onTimeout: () => new Error(`no answer to ${method}`) })
        )
        if (message.result === undefined) return yield* Effect.fail(new Error(`${method}: ${JSON.stringify(message)}`))
        return message.result
      })
    yield* request("initialize", { clientInfo: { name: "call-path" } })
    return request
  })

const main = Effect.gen(function* () {
  const session = new Session()
  session.connect()
  yield* Effect.addFinalizer(() => Effect.sync(() => session.disconnect()))
  yield* post(session, "Profiler.enable")
  yield* post(session, "Profiler.startPreciseCoverage", { callCount: true, detailed: false })

  const dataDir = mkdtempSync(join(tmpdir(), "call-path-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const request = yield* connect(dataDir)
  const thread = yield* request("thread/start", { config: { toolProfile: "extended" } })
  const threadId = (thread.thread as { id: string }).id
  yield* request("turn/start", { threadId, turnId: "t1" })
  const read = (callId: string) =>
    Effect.flatMap(
      request("tool/call", {
        threadId,
        turnId: "t1",
        callId,
        name: "read_mcp_resource",
        arguments: '{"server":"srv","uri":"f://notes.txt"}'
      }),
      (result) =>
        result.success === true ? Effect.void : Effect.fail(new Error(`${callId}: ${JSON.stringify(result)}`))
    )
  yield* read("warm-up")
  return yield* filesRunBy(session, read("measured"))
})

const maxAt = process.argv.indexOf("--max")
const max = maxAt === -1 ? undefined : Number(process.argv[maxAt + 1])
const files = await Effect.runPromise(Effect.scoped(main))
process.stdout.write(
  `${files.join("\n")}\none extended read_mcp_resource through tool/call ran functions in ${files.length} of our files\n`
)
if (max !== undefined && files.length > max) {
  process.stderr.write(`more than ${max} files\n`)
  process.exitCode = 1
}
process.exit()
