/**
 * The raw-SDK side of scenario 12 (run as `dist/rawHost.js`): connects the stdio servers given as JSON
 * in `RAW_HOST_SERVERS` (`[{command, args}]`) with the raw v2 SDK client, all at once (`Promise.all`),
 * each child with this process's environment (as the app-server starts them),
 * prints one line `{"ready":N}` when every one is initialised, and closes them and exits when its
 * standard input ends.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"

interface Command {
  readonly command: string
  readonly args: Array<string>
}

const servers = JSON.parse(process.env.RAW_HOST_SERVERS ?? "[]") as Array<Command>
const main = async (): Promise<void> => {
  const clients = await Promise.all(
    servers.map(async (server) => {
      const client = new Client({ name: "raw-host", version: "1.0.0" })
      // the children get the host's whole environment, as the app-server's do (a stdio server's
      // environment is the host's overlaid with its `env`); the SDK's default would keep only a few
      // variables, and one it drops can change what every child pays at start (NODE_EXTRA_CA_CERTS:
      // Node then reads the CA file at every start, about 80 ms on the bench machine)
      const env = Object.fromEntries(
        Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)
      )
      await client.connect(new StdioClientTransport({ ...server, env, stderr: "ignore" }), { timeout: 600_000 })
      return client
    })
  )
  process.stdout.write(`${JSON.stringify({ ready: clients.length })}\n`)
  process.stdin.resume()
  process.stdin.on("end", () => {
    Promise.all(clients.map((c) => c.close())).then(
      () => process.exit(0),
      () => process.exit(1)
    )
  })
}
main().catch((error: unknown) => {
  process.stderr.write(`raw host failed: ${String(error)}\n`)
  process.exit(1)
})
