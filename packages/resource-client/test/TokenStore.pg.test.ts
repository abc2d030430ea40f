/**
 * The TokenStore contract over PostgreSQL (`TokenStore.fromText` over thread-store's `TokenVault`),
 * on a throw-away cluster: the suite's cases with two stores on one database as two app-servers;
 * the rows sealed (no token in the table, a fresh nonce per write); the key refused with a clear error
 * naming `MCP_RESOURCES_TOKEN_KEY` and never quoting it; and one refresher: two app-servers (two pools)
 * racing the refresh of one expired login against the OAuth fixture (rotating refresh tokens) send one
 * refresh request, and both end with the new token.
 */
import * as NodeCrypto from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { exampleSpec, followAuthorization, startOAuthHttp } from "@mcp-resources/fixtures"
import { Config } from "@mcp-resources/protocol"
import { TokenVault } from "@mcp-resources/thread-store"
import { ConfigProvider, Context, Effect, Fiber, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { inject } from "vitest"
import { McpTransport, OAuth, ResourceClient, type ServerEntry, TokenStore } from "../src/index.js"
import { build, tokenStoreSuite } from "./TokenStoreSuite.js"
import { freshDatabase, psql } from "./utils/psql.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`PostgreSQL token store tests skipped: ${cluster.skipped}`)
}

const newKey = () => NodeCrypto.randomBytes(32).toString("base64")

/** A TokenStore over a vault of its own (its own pool) on `url`: one app-server's store. */
const storeOn = (url: string, key: string): Layer.Layer<TokenStore.TokenStore> =>
  Layer.effect(TokenStore.TokenStore, Effect.flatMap(TokenVault.TokenVault, TokenStore.fromText)).pipe(
    Layer.provide(Layer.unwrapEffect(Effect.map(TokenVault.parseKey(key), (k) => TokenVault.layerPg({ url, key: k })))),
    Layer.orDie
  )

const rawRows = (url: string) =>
  psql(
    url,
    `SELECT server, url, encode(nonce, 'hex'), encode(sealed, 'hex') FROM ${TokenVault.table} ORDER BY server, url`
  )

/** Writes `text` as the login of each key through a vault with `key`, bypassing the TokenStore. */
const writeThroughVault = (url: string, key: string, text: string, keys: ReadonlyArray<TokenVault.Key>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const vault = yield* Effect.map(
        Layer.build(
          Layer.unwrapEffect(Effect.map(TokenVault.parseKey(key), (k) => TokenVault.layerPg({ url, key: k })))
        ),
        Context.get(TokenVault.TokenVault)
      )
      for (const k of keys) yield* vault.write(k, text)
    })
  ).pipe(Effect.orDie)

const both = [
  { server: "docs", url: "https://docs.example.com/mcp" },
  { server: "mail", url: "https://docs.example.com/mcp" }
]

if (clusterUrl !== undefined) {
  tokenStoreSuite(
    "postgres",
    Effect.map(freshDatabase(clusterUrl), (url) => {
      const key = newKey()
      return {
        open: () => storeOn(url, key),
        location: `PostgreSQL table ${TokenVault.table}`,
        raw: rawRows(url),
        corruptions: {
          "sealed values altered": Effect.asVoid(
            psql(url, `UPDATE ${TokenVault.table} SET sealed = set_byte(sealed, 0, (get_byte(sealed, 0) + 1) % 256)`)
          ),
          "sealed values cut short": Effect.asVoid(
            psql(url, `UPDATE ${TokenVault.table} SET sealed = substring(sealed from 1 for 8)`)
          ),
          "logins sealed with another key": writeThroughVault(url, newKey(), "{}", both),
          "logins of the wrong shape": writeThroughVault(
            url,
            key,
            JSON.stringify({ tokens: { access_token: "x", token_type: 7 } }),
            both
          )
        },
        unreadable: Effect.asVoid(psql(url, `ALTER TABLE ${TokenVault.table} RENAME TO ${TokenVault.table}_elsewhere`))
      }
    }),
    {
      shared: true,
      noFile: "the rows are in PostgreSQL, sealed with MCP_RESOURCES_TOKEN_KEY: there is no file mode"
    }
  )
}

describe("the token key (MCP_RESOURCES_TOKEN_KEY)", () => {
  it.effect(
    "32 bytes of base64 are a key; another length, non-base64 or empty text is refused naming the variable",
    () =>
      Effect.gen(function* () {
        const good = newKey()
        const key = yield* TokenVault.parseKey(`${good}\n`)
        assert.deepStrictEqual([...Redacted.value(key)], [...Buffer.from(good, "base64")])
        const refused = {
          "16 bytes": NodeCrypto.randomBytes(16).toString("base64"),
          "48 bytes": NodeCrypto.randomBytes(48).toString("base64"),
          "not base64": `${good.slice(0, 40)}!@#=`,
          hex: NodeCrypto.randomBytes(32).toString("hex"),
          empty: ""
        }
        for (const [what, value] of Object.entries(refused)) {
          const error = yield* Effect.flip(TokenVault.parseKey(value))
          assert.include(error.message, "MCP_RESOURCES_TOKEN_KEY", what)
          if (value !== "") assert.notInclude(error.message, value, `${what}: the value is not quoted`)
        }
        assert.strictEqual(
          (yield* Effect.flip(TokenVault.parseKey(refused["16 bytes"]))).message,
          "cannot use the token key: MCP_RESOURCES_TOKEN_KEY must be 32 random bytes in base64 (44 characters, such as the output of `openssl rand -base64 32`); the value set is not"
        )
      })
  )

  it.effect(
    "the vault of [persistence] without the variable fails naming it; the key is read from the environment, empty counts as unset",
    () =>
      Effect.gen(function* () {
        const missing = yield* Effect.flip(
          Effect.scoped(Layer.build(TokenVault.layerFromConfig({ url: "postgres://127.0.0.1:1/none" }))).pipe(
            Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
          )
        )
        assert.strictEqual(missing.message, "cannot open the token store: MCP_RESOURCES_TOKEN_KEY is not set")
        const key = newKey()
        const read = yield* TokenVault.keyFromConfig.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["MCP_RESOURCES_TOKEN_KEY", key]])))
        )
        assert.isTrue(Option.isSome(read))
        const empty = yield* TokenVault.keyFromConfig.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["MCP_RESOURCES_TOKEN_KEY", ""]])))
        )
        assert.isTrue(Option.isNone(empty), "an empty variable counts as unset")
        const bad = yield* Effect.flip(
          TokenVault.keyFromConfig.pipe(
            Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["MCP_RESOURCES_TOKEN_KEY", "c2VjcmV0"]])))
          )
        )
        assert.include(bad.message, "MCP_RESOURCES_TOKEN_KEY must be 32 random bytes")
        assert.notInclude(bad.message, "c2VjcmV0")
      })
  )
})

const defaults = { enabled: true, startupTimeoutSec: 30, toolTimeoutSec: 30, maxMessageBytes: 67108864 }
const noCache: Config.Config = { ...Config.empty, cache: { enabled: false, maxBytes: 0 } }

/** Every log line of the tests below. */
const captured: Array<string> = []
const capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ message, cause }) => {
    captured.push(`${String(message)} ${String(cause)}`)
  })
)

describe.skipIf(clusterUrl === undefined)("TokenStore on PostgreSQL", () => {
  it.scoped("what is stored is sealed: no token in the table, and each write has a fresh nonce", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase(clusterUrl!)
      const store = yield* build(storeOn(url, newKey()))
      const docs = both[0]!
      const entry = {
        tokens: { access_token: "at-plain-sight", token_type: "Bearer", refresh_token: "rt-plain-sight" }
      }
      yield* store.set(docs, entry)
      const first = yield* rawRows(url)
      const text = yield* psql(url, `SELECT encode(sealed, 'escape') FROM ${TokenVault.table}`)
      for (const secret of ["at-plain-sight", "rt-plain-sight"]) {
        assert.notInclude(first, Buffer.from(secret).toString("hex"))
        assert.notInclude(text, secret)
      }
      yield* store.set(docs, entry)
      const second = yield* rawRows(url)
      assert.notStrictEqual(second, first, "the same login written again is sealed anew")
      assert.deepStrictEqual(yield* store.get(docs), Option.some(entry))
    })
  )

  it.scoped("a refresh lock whose holder's connection ends (a killed app-server) goes to the next waiter", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase(clusterUrl!)
      const key = newKey()
      const holder = yield* build(storeOn(url, key))
      const waiter = yield* build(storeOn(url, key))
      const release = yield* holder.lock!(both[0]!)
      const waiting = yield* Effect.fork(waiter.lock!(both[0]!))
      // the holder's session ends as a killed process's does
      const ended = yield* psql(
        url,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' AND granted"
      )
      assert.strictEqual(ended, "1")
      const next = yield* Fiber.join(waiting)
      yield* next
      // the holder's own release after its connection ended does not fail
      yield* release
    })
  )

  it.scopedLive(
    "two app-servers racing the refresh of one expired login: one refresh request, both end with the new token",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const key = newKey()
        // the authorization server rotates refresh tokens (a used one is refused) and holds a refresh's
        // answer until a second refresh arrives (or 3 s), so that two refreshes would overlap
        const server = yield* Effect.acquireRelease(
          Effect.promise(() => startOAuthHttp(exampleSpec(), { holdRefreshMs: 3000 })),
          (f) => Effect.promise(() => f.close())
        )
        const entry: ServerEntry.ServerEntry = {
          name: "docs",
          transport: { _tag: "http", url: server.url, httpHeaders: {} },
          ...defaults
        }
        const storeA = yield* build(storeOn(url, key))
        const storeB = yield* build(storeOn(url, key))
        const withStore =
          (store: TokenStore.Service) =>
          <A, E, R>(effect: Effect.Effect<A, E, R>) =>
            effect.pipe(Effect.provide(McpTransport.layer), Effect.provideService(TokenStore.TokenStore, store))
        // the login completes through A
        yield* withStore(storeA)(
          Effect.scoped(
            Effect.gen(function* () {
              const start = yield* OAuth.startLogin(entry, { timeoutSec: 30 })
              assert.strictEqual(yield* Effect.promise(() => followAuthorization(start.authorizationUrl)), 200)
              yield* start.completion
            })
          )
        )
        const client = (store: TokenStore.Service) =>
          withStore(store)(
            Effect.gen(function* () {
              const c = yield* ResourceClient.make({ config: noCache, servers: [entry] })
              yield* Effect.flatMap(c.latest, (set) => set.awaitAllSettled)
              return c
            })
          )
        // B has never seen a login: it serves with A's
        const a = yield* client(storeA)
        const b = yield* client(storeB)
        for (const c of [a, b]) {
          const status = (yield* c.servers).find((s) => s.name === "docs")
          assert.strictEqual(status?.status, "ready", status?.error)
        }
        const before = Option.getOrThrow(yield* storeB.get({ server: "docs", url: server.url })).tokens!
        server.expireAccessTokens()
        const counts = { ...server.counts }
        const [listedA, listedB] = yield* Effect.all([a.listResources("docs"), b.listResources("docs")], {
          concurrency: "unbounded"
        })
        assert.strictEqual(listedA.resources.length, 3)
        assert.strictEqual(listedB.resources.length, 3)
        assert.deepStrictEqual(
          { refreshes: server.counts.refreshes - counts.refreshes, refused: server.counts.refusedRefreshes },
          { refreshes: 1, refused: 0 },
          "one refresh request reached the authorization server"
        )
        const afterA = Option.getOrThrow(yield* storeA.get({ server: "docs", url: server.url })).tokens!
        const afterB = Option.getOrThrow(yield* storeB.get({ server: "docs", url: server.url })).tokens!
        assert.deepStrictEqual(afterA, afterB)
        assert.notStrictEqual(afterA.access_token, before.access_token)
        assert.notStrictEqual(afterA.refresh_token, before.refresh_token, "the refresh token rotated")
        // both send the new token
        const sent = server.authorizationHeaders.slice(-2)
        assert.deepStrictEqual(sent, [`Bearer ${afterA.access_token}`, `Bearer ${afterA.access_token}`])
        // no secret in the logs, the server lists or the table
        const haystack = [...captured, JSON.stringify(yield* a.servers), JSON.stringify(yield* b.servers)].join("\n")
        const raw = yield* rawRows(url)
        for (const secret of server.secrets()) {
          assert.notInclude(haystack, secret)
          assert.notInclude(raw, Buffer.from(secret).toString("hex"))
        }
      }).pipe(Effect.provide(capture), Logger.withMinimumLogLevel(LogLevel.All))
  )
})
