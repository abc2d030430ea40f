/**
 * The peers the tests talk to: the real app-server (`apps/app-server/dist/main.js`, built first: turbo
 * builds it before this package's tests) and a tiny fake peer that echoes every message back as an
 * `echo` notification, so a test sees exactly what the client wrote.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, type Scope } from "effect"
import { AppServerClient, type Transport } from "../../src/index.js"

/** The built app-server entry point of this checkout. */
export const appServerMain = fileURLToPath(new URL("../../../../apps/app-server/dist/main.js", import.meta.url))

/** A fresh temporary directory, removed when the scope closes. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "app-server-client-test-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The stdio options that start the app-server on a fresh data dir (and `config`, when given). */
export const appServer = (
  options: { readonly config?: Record<string, unknown>; readonly args?: ReadonlyArray<string> } & Partial<
    Pick<Transport.StdioOptions, "stderr">
  > = {}
): Effect.Effect<Transport.StdioOptions, never, Scope.Scope> =>
  Effect.gen(function* () {
    if (!Fs.existsSync(appServerMain)) {
      return yield* Effect.dieMessage(`${appServerMain} is not built: run \`npx turbo run build\` first`)
    }
    const dir = yield* tempDir
    const args = [appServerMain, "--data-dir", Path.join(dir, "data")]
    if (options.config !== undefined) {
      const file = Path.join(dir, "config.json")
      Fs.writeFileSync(file, JSON.stringify(options.config))
      args.push("--config", file)
    }
    return {
      command: process.execPath,
      args: [...args, ...(options.args ?? [])],
      env: { ...process.env, MCP_RESOURCES_LOG: "warn" },
      stderr: options.stderr ?? "ignore"
    }
  })

/**
 * A fake peer: every line it reads comes back as `{"method":"echo","params":<message>}`; `ask`
 * sends the client a request `{id:"s1", method: params.method, params: params.params}`; `exit` writes
 * `bye` to standard error and exits with code 3. It never answers a request.
 */
const fakePeerScript = `
const lines = require("node:readline").createInterface({ input: process.stdin })
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n")
lines.on("line", (line) => {
  const m = JSON.parse(line)
  send({ method: "echo", params: m })
  if (m.method === "ask") send({ id: m.params.id, method: m.params.method, params: m.params.params })
  if (m.method === "exit") { process.stderr.write("bye\\n"); process.exit(3) }
})
`

/** Stdio options of the fake peer. */
export const fakePeer: Transport.StdioOptions = {
  command: process.execPath,
  args: ["-e", fakePeerScript],
  stderr: "ignore"
}

/** Connects to the fake peer. */
export const connectFake = (options?: AppServerClient.Options) => AppServerClient.stdio(fakePeer, options)

/** Whether a process with this id is still running. */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
