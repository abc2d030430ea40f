/** Shared parts of the OAuth tests: entries, the fixture as a scoped resource, the client, the log capture. */
import * as NodeFs from "node:fs"
import { createServer as createTcpServer } from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { exampleSpec, followAuthorization, type OAuthFixtureOptions, startOAuthHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { Effect, Either, Logger } from "effect"
import { OAuth, ResourceClient, type ServerEntry } from "../../src/index.js"

const defaults = { enabled: true, startupTimeoutSec: 30, toolTimeoutSec: 30, maxMessageBytes: 67108864 }

/** An HTTP entry (its OAuth keys as `Config.decode` makes them). */
export const http = (
  name: string,
  url: string,
  extra: Partial<Extract<ServerEntry.ServerEntry["transport"], { _tag: "http" }>> = {}
): ServerEntry.ServerEntry => ({
  name,
  transport: { _tag: "http", url, httpHeaders: {}, ...extra },
  ...defaults
})

/** The entry a config file with these keys of `[mcp_servers.NAME]` gives (the decoder checks them). */
export const fromConfig = (name: string, keys: Record<string, unknown>): ServerEntry.ServerEntry =>
  Either.getOrThrowWith(Config.decode({ mcp_servers: { [name]: keys } }, "test.toml"), (error) => error).mcpServers[0]!

const noCache: Config.Config = { ...Config.empty, cache: { enabled: false, maxBytes: 0 } }

/** The OAuth fixture, closed with the scope. */
export const fixture = (options?: OAuthFixtureOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startOAuthHttp(exampleSpec(), options)),
    (f) => Effect.promise(() => f.close())
  )

/** A temporary directory, removed with the scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "oauth-test-"))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

/** The message of a failure, or `succeeded`. */
export const message = <A>(either: Either.Either<A, { readonly message: string }>): string =>
  Either.match(either, { onLeft: (error) => error.message, onRight: () => "succeeded" })

/** A logger that keeps every line (message and cause) in `lines`. */
export const capture = (lines: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message, cause }) => {
      lines.push(`${String(message)} ${String(cause)}`)
    })
  )

/** A resource client of these entries, every start-up settled. */
export const client = (servers: ReadonlyArray<ServerEntry.ServerEntry>) =>
  Effect.gen(function* () {
    const c = yield* ResourceClient.make({ config: noCache, servers })
    yield* Effect.flatMap(c.latest, (set) => set.awaitAllSettled)
    return c
  })

/** `status: error` of a server. */
export const statusOf = (c: ResourceClient.Service, name: string) =>
  Effect.map(c.servers, (servers) => {
    const s = servers.find((server) => server.name === name)
    return `${s?.status}: ${s?.error ?? ""}`
  })

/** A login with the browser step scripted; the authorization URL it used (undefined: no browser was needed). */
export const login = (entry: ServerEntry.ServerEntry) =>
  Effect.scoped(
    Effect.gen(function* () {
      const start = yield* OAuth.startLogin(entry, { timeoutSec: 30 })
      if (start.authorizationUrl === "") {
        yield* start.completion
        return undefined
      }
      const url = new URL(start.authorizationUrl)
      yield* Effect.promise(() => followAuthorization(start.authorizationUrl))
      yield* start.completion
      return url
    })
  )

/** A port nothing listens on (taken, then given back). */
export const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createTcpServer()
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
)
