/**
 * The result cache against real HTTP fixture servers: notifications keep invalidating after a
 * dropped server is reconnected (every connection is watched, not only the first), and a private
 * answer cached under one authorization context (bearer token, connector `_meta`) is not served to
 * another. Requests are counted at the fixture.
 */
import { assert, describe, it } from "@effect/vitest"
import { type FixtureSpec, type HttpFixture, startHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { ConfigProvider, Effect } from "effect"
import { McpTransport, ResourceClient, type ServerEntry } from "../src/index.js"
import { awaitStatus, awaitUpdate, listChangedOf } from "./utils/wait.js"

const spec: FixtureSpec = {
  resourcePages: [{ result: { resources: [{ uri: "x://a", name: "a" }], ttlMs: 600_000 } }],
  reads: [
    {
      uri: "x://a",
      result: { ttlMs: 600_000, cacheScope: "private", contents: [{ uri: "x://a", text: "body of a" }] }
    }
  ]
}

const entry = (url: string, options: Partial<ServerEntry.ServerEntry> = {}): ServerEntry.ServerEntry => ({
  name: "remote",
  transport: { _tag: "http", url, httpHeaders: {} },
  enabled: true,
  startupTimeoutSec: 60,
  toolTimeoutSec: 30,
  maxMessageBytes: 67108864,
  ...options
})

const setupOf = (servers: ReadonlyArray<ServerEntry.ServerEntry>): ServerEntry.Setup => ({
  config: Config.empty,
  servers
})

const http = (port?: number) =>
  Effect.acquireRelease(
    Effect.promise(() => startHttp(spec, port === undefined ? {} : { port })),
    (fixture) => Effect.promise(() => fixture.close())
  )

const count = (fixture: HttpFixture, method: string) => fixture.requests.filter((r) => r.method === method).length

/**
 * Sends the fixture's notifications in order, then a `list_changed`, and awaits the client's update for
 * that: the notifications before it have been handled by then.
 */
const notifyHandled = (
  client: ResourceClient.Service,
  fixture: HttpFixture,
  notifications: ReadonlyArray<readonly [method: string, params?: Record<string, unknown>]>
) =>
  awaitUpdate(
    client,
    listChangedOf("remote"),
    Effect.promise(async () => {
      for (const [method, params] of notifications) await fixture.notify(method, params)
      await fixture.notify("notifications/resources/list_changed")
    })
  )

const settled = (client: ResourceClient.Service) => Effect.flatMap(client.latest, (set) => set.awaitAllSettled)

describe("the cache over HTTP", () => {
  it.live(
    "after a dropped server is reconnected, list_changed and resources/updated of the new connection still invalidate",
    () =>
      Effect.gen(function* () {
        const first = yield* http()
        const port = Number(new URL(first.url).port)
        const client = yield* ResourceClient.make(setupOf([entry(first.url)]))
        yield* settled(client)
        yield* client.listResources("remote")
        yield* client.listResources("remote")
        assert.strictEqual(count(first, "resources/list"), 1)
        // the first connection's notifications invalidate (as before), once its stream is open
        yield* Effect.promise(() => first.awaitStream())
        yield* notifyHandled(client, first, [])
        yield* client.listResources("remote")
        assert.strictEqual(count(first, "resources/list"), 2)
        // the server drops: the client finds out (its stream is cut) and reconnects with its backoff,
        // to the server back on the same port
        yield* Effect.promise(() => first.close())
        yield* awaitStatus(client, "remote", (s) => s.status === "failed")
        const second = yield* http(port)
        yield* awaitStatus(client, "remote", (s) => s.status === "ready")
        yield* Effect.promise(() => second.awaitStream())
        // the new connection answers on its own (nothing of the dropped one is served), then caches
        yield* client.listResources("remote")
        yield* client.listResources("remote")
        yield* client.readResource("remote", "x://a")
        yield* client.readResource("remote", "x://a")
        assert.deepStrictEqual([count(second, "resources/list"), count(second, "resources/read")], [1, 1])
        // behind a flood of notifications nothing handles (dropped from the event stream before the
        // SDK parses them), a list_changed of the new connection makes the next list go to the server
        yield* Effect.promise(() =>
          Promise.all(
            Array.from({ length: 2000 }, (_, i) =>
              second.notify("notifications/progress", { progressToken: i, progress: i })
            )
          )
        )
        yield* notifyHandled(client, second, [])
        yield* client.listResources("remote")
        assert.strictEqual(count(second, "resources/list"), 2)
        // and a resources/updated the next read of its uri
        yield* notifyHandled(client, second, [["notifications/resources/updated", { uri: "x://a" }]])
        yield* client.readResource("remote", "x://a")
        assert.strictEqual(count(second, "resources/read"), 2)
      }).pipe(Effect.provide(McpTransport.layer), Effect.scoped),
    90_000
  )

  it.live(
    "a private answer cached under one token or connector is not served to another",
    () =>
      Effect.gen(function* () {
        const fixture = yield* http()
        const withToken = (token: string) =>
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["RC_CACHE_REMOTE_TOKEN", token]])))
        const hosted = entry(fixture.url, {
          transport: { _tag: "http", url: fixture.url, httpHeaders: {}, bearerTokenEnvVar: "RC_CACHE_REMOTE_TOKEN" }
        })
        const client = yield* ResourceClient.make(setupOf([hosted])).pipe(withToken("token-one"))
        yield* settled(client)
        // one authorization context: cached
        yield* client.readResource("remote", "x://a", { connector: "one" })
        yield* client.readResource("remote", "x://a", { connector: "one" })
        assert.strictEqual(count(fixture, "resources/read"), 1)
        // another connector (its own `_meta`) on the same server and token: not served from the cache
        yield* client.readResource("remote", "x://a", { connector: "two" })
        assert.strictEqual(count(fixture, "resources/read"), 2)
        // the same entry with another bearer token: the server is reached again, with the new token
        yield* client.reload(setupOf([hosted])).pipe(withToken("token-two"))
        yield* settled(client)
        const read = yield* client.readResource("remote", "x://a", { connector: "one" })
        assert.strictEqual(read.contents[0]?.uri, "x://a")
        assert.strictEqual(count(fixture, "resources/read"), 3)
        const authorization = fixture.headers.map((h) => h.authorization)
        assert.strictEqual(authorization.at(-1), "Bearer token-two")
        // and the new context caches on its own
        yield* client.readResource("remote", "x://a", { connector: "one" })
        assert.strictEqual(count(fixture, "resources/read"), 3)
      }).pipe(Effect.provide(McpTransport.layer), Effect.scoped),
    60_000
  )
})
