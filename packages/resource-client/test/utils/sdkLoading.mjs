/**
 * Run by `SdkLoading.test.ts` in a process of its own: imports the built resource client, opens a
 * connection set without servers, then one with the stdio server of `argv[3]` (a JSON command), and
 * prints after each step one line `{"step", "sdkLoaded", "status"}`: whether the MCP client SDK (or
 * zod) had been loaded by then, as the resolve hook logged it to `argv[2]`.
 */
import { existsSync, readFileSync } from "node:fs"
import { register } from "node:module"

const [log, commandJson] = process.argv.slice(2)
register(new URL("./sdkLoadingHook.mjs", import.meta.url), { data: { log } })

const loaded = () => existsSync(log) && readFileSync(log, "utf8").trim() !== ""
const report = (step, status) => process.stdout.write(`${JSON.stringify({ step, sdkLoaded: loaded(), status })}\n`)

const { Effect } = await import("effect")
const { Config } = await import("@mcp-resources/protocol")
const { McpTransport, ResourceClient } = await import("../../dist/index.js")
report("imported", [])

const command = JSON.parse(commandJson)
const entry = {
  name: "fixture",
  transport: { _tag: "stdio", command: command.command, args: command.args, env: {} },
  enabled: true,
  startupTimeoutSec: 30,
  toolTimeoutSec: 30,
  maxMessageBytes: 67108864
}
const statuses = (servers) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const client = yield* ResourceClient.make({ config: Config.empty, servers })
        const set = yield* client.latest
        yield* set.awaitAllSettled
        return set.servers().map((server) => server.status)
      })
    ).pipe(Effect.provide(McpTransport.layer))
  )

report("no servers", await statuses([]))
report("one server", await statuses([entry]))
