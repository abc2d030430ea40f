/**
 * OAuth end to end against the loopback authorization server and protected MCP server of the
 * fixtures: `mcp-resources login` (the browser step scripted: an HTTP client follows the printed URL
 * to the redirect), the model tools of the CLI with the stored login, `logout`, a login that nobody
 * completes (bounded), and the app-server's `mcpServer/oauth/login` → `loginCompleted` → a new set
 * with the server ready, two processes refreshing one login at once; no token, code, verifier or
 * secret in the logs, the errors, `mcpServer/list`, or the SQLite and PostgreSQL stores.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import {
  exampleSpec,
  followAuthorization,
  type OAuthFixture,
  type OAuthFixtureOptions,
  startOAuthHttp
} from "@mcp-resources/fixtures"
import { AppServer, Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import { inject } from "vitest"
import {
  freePort,
  resultOf,
  start,
  startInitialized,
  tempDir,
  threadWithTurn,
  waitSettled,
  WaitTimeout,
  writeConfig
} from "./utils/AppServerProcess.js"
import { freshDatabase, psql } from "./utils/pg.js"
import * as PublishedSchema from "./utils/PublishedSchema.js"

const cliJs = fileURLToPath(new URL("../dist/Cli.js", import.meta.url))

const fixtureWith = (options: OAuthFixtureOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startOAuthHttp(exampleSpec(), options)),
    (f) => Effect.promise(() => f.close())
  )
const fixture = fixtureWith()

interface Running {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Waits until stdout matches (at most 20 s). */
  readonly waitStdout: (pattern: RegExp) => Effect.Effect<RegExpExecArray, WaitTimeout>
  readonly exited: Effect.Effect<number | null, WaitTimeout>
}

/** Runs the CLI with streamed output; killed when the scope closes. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Running => {
      const child = spawn(process.execPath, [cliJs, ...args], {
        cwd: tempDir(),
        env: { ...process.env, MCP_RESOURCES_LOG: "debug", BROWSER: "", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      const listeners = new Set<() => void>()
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8")
        for (const l of [...listeners]) l()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString("utf8")
      })
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      return {
        child,
        stdout: () => out,
        stderr: () => err,
        waitStdout: (pattern) =>
          Effect.async<RegExpExecArray>((resume) => {
            const check = () => {
              const match = pattern.exec(out)
              if (match !== null) {
                listeners.delete(check)
                resume(Effect.succeed(match))
              }
            }
            listeners.add(check)
            check()
            return Effect.sync(() => listeners.delete(check))
          }).pipe(
            Effect.timeoutFail({
              duration: "20 seconds",
              onTimeout: () => new WaitTimeout({ message: `stdout never matched ${pattern}: ${out} ${err}` })
            })
          ),
        exited: Effect.promise(() => exit).pipe(
          Effect.timeoutFail({
            duration: "30 seconds",
            onTimeout: () => new WaitTimeout({ message: `the CLI did not exit: ${out} ${err}` })
          })
        )
      }
    }),
    (running) => Effect.sync(() => running.child.exitCode === null && running.child.kill("SIGKILL"))
  )

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`the PostgreSQL secrets test of OAuth is skipped: ${cluster.skipped}`)
}

/** Every row of every table of the database, as text. */
const databaseText = (url: string) =>
  Effect.gen(function* () {
    const tables = (yield* psql(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"
    ))
      .split("\n")
      .filter((name) => name !== "")
    assert.ok(tables.length > 0, "the store has tables")
    const rows: Array<string> = []
    for (const table of tables) rows.push(yield* psql(url, `SELECT string_agg(t::text, E'\\n') FROM "${table}" t`))
    return rows.join("\n")
  })

/**
 * Follows a login's authorization URL with PKCE downgraded to `plain`, which the fixture's
 * authorization server refuses (redirecting back with the error); answers the final status.
 */
const followRefused = (authorizationUrl: string) => {
  const refused = new URL(authorizationUrl)
  refused.searchParams.set("code_challenge_method", "plain")
  return Effect.promise(() => followAuthorization(refused.href))
}

/** A failed login's `loginCompleted`. */
const isLoginFailed = (m: { readonly method?: unknown; readonly params?: unknown }) =>
  m.method === "mcpServer/oauth/loginCompleted" && (m.params as { success?: boolean }).success === false

/** `loginCompleted` of the refusal {@link followRefused} brings. */
const pkceRefusal = {
  server: "docs",
  success: false,
  error: Messages.oauth.refused("docs", "invalid_request (PKCE with S256 is required)")
}

/** A loopback port free now. */
const configFor = (server: OAuthFixture) => writeConfig(tempDir(), { mcp_servers: { docs: { url: server.url } } })

/** Everything a secret must not appear in: the SQLite store and its journal, as bytes. */
const storeFiles = (dataDir: string): string =>
  readdirSync(dataDir)
    .filter((name) => name.startsWith("state.sqlite"))
    .map((name) => readFileSync(join(dataDir, name)).toString("latin1"))
    .join("\n")

const assertNoSecret = (server: OAuthFixture, haystack: string) => {
  const secrets = server.secrets()
  assert.ok(secrets.length >= 4, `the fixture saw ${secrets.length} secrets`)
  for (const secret of secrets) assert.notInclude(haystack, secret)
}

describe("mcp-resources login / logout", () => {
  it.scopedLive("login prints the URL, receives the redirect, stores the tokens; list works; logout", () =>
    Effect.gen(function* () {
      const server = yield* fixture
      const config = configFor(server)
      const dataDir = tempDir()
      const env = { MCP_RESOURCES_HOME: dataDir }
      const before = yield* runCli(["list", "--server", "docs", "--config", config], env)
      assert.strictEqual(yield* before.exited, 1)
      assert.include(before.stderr(), Messages.authorizationRequired("docs"))

      const login = yield* runCli(["login", "docs", "--config", config, "--data-dir", dataDir])
      const [, url] = yield* login.waitStdout(/^ {2}(http\S+)$/m)
      assert.ok(url!.startsWith(`${server.issuer}/authorize?`), url)
      // the scripted browser: to the authorization server, then its redirect to the CLI's listener
      assert.strictEqual(yield* Effect.promise(() => followAuthorization(url!)), 200)
      assert.strictEqual(yield* login.exited, 0)
      assert.include(login.stdout(), Messages.oauth.loggedIn("docs"))
      assert.strictEqual(statSync(join(dataDir, "oauth-tokens.json")).mode & 0o777, 0o600)

      const listed = yield* runCli(["list", "--server", "docs", "--config", config], env)
      assert.strictEqual(yield* listed.exited, 0)
      assert.include(listed.stdout(), "example://docs/readme.md")

      const logout = yield* runCli(["logout", "docs", "--config", config, "--data-dir", dataDir])
      assert.strictEqual(yield* logout.exited, 0)
      assert.include(logout.stdout(), Messages.oauth.loggedOut("docs"))
      const after = yield* runCli(["list", "--server", "docs", "--config", config], env)
      assert.strictEqual(yield* after.exited, 1)
      assert.include(after.stderr(), Messages.authorizationRequired("docs"))

      const output = [before, login, listed, logout, after].map((r) => r.stdout() + r.stderr()).join("\n")
      assertNoSecret(server, output)
    })
  )

  it.scopedLive("two processes refreshing one expired login at once: one refresh, and both work", () =>
    Effect.gen(function* () {
      // the authorization server holds a refresh's answer until a second refresh arrives (or 3 s):
      // without the store's lock both processes would send the same single-use refresh token
      const server = yield* fixtureWith({ holdRefreshMs: 3000 })
      const config = configFor(server)
      const dataDir = tempDir()
      const env = { MCP_RESOURCES_HOME: dataDir }
      const login = yield* runCli(["login", "docs", "--config", config, "--data-dir", dataDir])
      const [, url] = yield* login.waitStdout(/^ {2}(http\S+)$/m)
      assert.strictEqual(yield* Effect.promise(() => followAuthorization(url!)), 200)
      assert.strictEqual(yield* login.exited, 0)
      // the stored access token now counts as expired: the next connection of each process refreshes
      const file = join(dataDir, "oauth-tokens.json")
      const stored = JSON.parse(readFileSync(file, "utf8"))
      for (const entry of stored.entries) entry.tokens.expires_at = Date.now() - 1000
      writeFileSync(file, JSON.stringify(stored), { mode: 0o600 })

      const first = yield* runCli(["list", "--server", "docs", "--config", config], env)
      const second = yield* runCli(["list", "--server", "docs", "--config", config], env)
      for (const run of [first, second]) {
        assert.strictEqual(yield* run.exited, 0, run.stderr())
        assert.include(run.stdout(), "example://docs/readme.md")
      }
      assert.strictEqual(server.counts.refreshes, 1)
      assert.strictEqual(server.counts.refusedRefreshes, 0)
      assert.isFalse(statSync(`${file}.lock`, { throwIfNoEntry: false }) !== undefined, "the lock file is removed")
      assertNoSecret(server, [first, second].map((r) => r.stdout() + r.stderr()).join("\n"))
    })
  )

  it.scopedLive("a login nobody completes ends after --timeout with its message; a bad timeout is a usage error", () =>
    Effect.gen(function* () {
      const server = yield* fixture
      const config = configFor(server)
      const login = yield* runCli(["login", "docs", "--config", config, "--data-dir", tempDir(), "--timeout", "1"])
      assert.strictEqual(yield* login.exited, 1)
      assert.include(login.stderr(), Messages.oauth.timedOut("docs", 1))
      const bad = yield* runCli(["login", "docs", "--timeout", "soon"])
      assert.strictEqual(yield* bad.exited, 2)
      assert.include(bad.stderr(), '--timeout must be a whole number of seconds >= 1, got "soon"')
      const unknown = yield* runCli(["login", "nope", "--config", config, "--data-dir", tempDir()])
      assert.strictEqual(yield* unknown.exited, 1)
      assert.include(unknown.stderr(), Messages.unknownServer("nope"))
    })
  )
})

describe("mcpServer/oauth/login", () => {
  it.scopedLive.skipIf(clusterUrl === undefined)(
    "with the PostgreSQL store: login, tool calls and a refresh leave no secret in the database or the output",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture
        const url = yield* freshDatabase(clusterUrl!)
        const config = writeConfig(tempDir(), {
          mcp_servers: { docs: { url: server.url } },
          persistence: { driver: "postgres", url }
        })
        const app = yield* startInitialized({ config, dataDir: tempDir() })
        yield* waitSettled(app)
        const started = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
        assert.strictEqual(yield* Effect.promise(() => followAuthorization(started.authorizationUrl as string)), 200)
        const done = yield* app.waitFor((m) => m.method === "mcpServer/oauth/loginCompleted", "20 seconds")
        assert.deepStrictEqual(done.params, { server: "docs", success: true })
        yield* waitSettled(app)
        const { threadId, turnId } = yield* threadWithTurn(app)
        const call = (callId: string) =>
          app.request("tool/call", {
            threadId,
            turnId,
            callId,
            name: "read_mcp_resource",
            arguments: '{"server":"docs","uri":"example://docs/readme.md"}'
          })
        assert.include(JSON.stringify(resultOf(yield* call("c1"))), "example://docs/readme.md")
        // the access token stops working: the next call refreshes (a new access and refresh token)
        server.expireAccessTokens()
        assert.include(JSON.stringify(resultOf(yield* call("c2"))), "example://docs/readme.md")
        assert.strictEqual(server.counts.refreshes, 1)
        const listed = JSON.stringify(resultOf(yield* app.request("mcpServer/list", {})))
        const stored = yield* databaseText(url)
        assert.include(stored, threadId) // the dump holds the thread's records
        assertNoSecret(server, [app.stderr(), JSON.stringify(app.messages), listed, stored].join("\n"))
      }),
    60000
  )

  it.scopedLive(
    "[oauth] redirect_url: the --listen listener receives the redirect; the login is kept in the token store, so the next app-server completes it after a restart",
    () =>
      Effect.gen(function* () {
        const server = yield* fixture
        const port = yield* freePort()
        const redirectUrl = `http://127.0.0.1:${port}/oauth/callback`
        const config = writeConfig(tempDir(), {
          mcp_servers: { docs: { url: server.url } },
          oauth: { redirect_url: redirectUrl }
        })
        const dataDir = tempDir()
        const args = ["--listen", `ws://127.0.0.1:${port}`]
        const first = yield* startInitialized({ config, dataDir, args })
        yield* waitSettled(first)
        const url = resultOf(yield* first.request("mcpServer/oauth/login", { server: "docs" }))
          .authorizationUrl as string
        assert.strictEqual(new URL(url).searchParams.get("redirect_uri"), redirectUrl)
        // the app-server stops before the browser comes back; the next one on the same data dir
        first.child.kill("SIGTERM")
        yield* first.exited()
        const second = yield* startInitialized({ config, dataDir, args })
        yield* waitSettled(second)
        // one login at a time, across the restart: a login asked for now is the one kept
        const again = resultOf(yield* second.request("mcpServer/oauth/login", { server: "docs" }))
        assert.strictEqual(again.authorizationUrl, url)
        assert.strictEqual(yield* Effect.promise(() => followAuthorization(url)), 200)
        const done = yield* second.waitFor((m) => m.method === "mcpServer/oauth/loginCompleted", "20 seconds")
        assert.deepStrictEqual(done.params, { server: "docs", success: true })
        const after = yield* waitSettled(second)
        assert.deepStrictEqual(
          after.map((s) => ({ name: s.name, status: s.status, auth: s.auth })),
          [{ name: "docs", status: "ready", auth: "loggedIn" }]
        )
        // the kept login ended with it: the file holds the tokens, not the verifier or the state
        const stored = readFileSync(join(dataDir, "oauth-tokens.json"), "utf8")
        assert.notInclude(stored, "pending_login")
        assert.notInclude(stored, new URL(url).searchParams.get("state")!)

        // a refusal the redirect brings ends the login as failed, with the loopback listener's page
        const next = resultOf(yield* second.request("mcpServer/oauth/login", { server: "docs" }))
          .authorizationUrl as string
        assert.strictEqual(yield* followRefused(next), 400)
        const failed = yield* second.waitFor(isLoginFailed, "20 seconds")
        assert.deepStrictEqual(failed.params, pkceRefusal)
        assertNoSecret(server, [first.stderr(), second.stderr(), JSON.stringify(second.messages)].join("\n"))
      }),
    60000
  )

  it.scopedLive("returns the URL; the redirect ends in loginCompleted and a new set with the server ready", () =>
    Effect.gen(function* () {
      const server = yield* fixture
      const dataDir = tempDir()
      const app = yield* startInitialized({ config: configFor(server), dataDir })
      assert.strictEqual(AppServer.serverCapabilities.oauthLogin, true) // the initialize result: capabilities.test.ts
      const first = yield* waitSettled(app)
      assert.deepStrictEqual(first, [
        {
          name: "docs",
          status: "failed",
          transport: "http",
          httpTransport: "streamable",
          error: Messages.authorizationRequired("docs"),
          auth: "loginRequired"
        }
      ])
      const unknown = yield* app.request("mcpServer/oauth/login", { server: "nope" })
      assert.deepStrictEqual(unknown.error, { code: -32600, message: Messages.unknownServer("nope") })

      const started = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
      assert.deepStrictEqual(PublishedSchema.resultProblems("mcpServer/oauth/login", started), [])
      const url = started.authorizationUrl as string
      assert.ok(url.startsWith(`${server.issuer}/authorize?`), url)
      assert.strictEqual(yield* Effect.promise(() => followAuthorization(url)), 200)
      const done = yield* app.waitFor((m) => m.method === "mcpServer/oauth/loginCompleted", "20 seconds")
      assert.deepStrictEqual(done.params, { server: "docs", success: true })
      assert.deepStrictEqual(PublishedSchema.notificationProblems("mcpServer/oauth/loginCompleted", done.params), [])
      const after = yield* waitSettled(app)
      assert.deepStrictEqual(
        after.map((s) => ({ name: s.name, status: s.status, auth: s.auth })),
        [{ name: "docs", status: "ready", auth: "loggedIn" }]
      )
      // the model's tools work on the new set
      const { threadId, turnId } = yield* threadWithTurn(app)
      const tool = resultOf(
        yield* app.request("tool/call", {
          threadId,
          turnId,
          callId: "c1",
          name: "list_mcp_resources",
          arguments: '{"server":"docs"}'
        })
      )
      assert.include(JSON.stringify(tool), "example://docs/readme.md")

      // a second login that fails: the authorization server's refusal comes back in loginCompleted
      const again = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
      assert.notStrictEqual(again.authorizationUrl, url) // the first login ended: this is a new one
      // a login of the same server while one is pending answers the pending one's URL: one flow
      const pendingAgain = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
      assert.strictEqual(pendingAgain.authorizationUrl, again.authorizationUrl)
      yield* followRefused(again.authorizationUrl as string)
      const failed = yield* app.waitFor(isLoginFailed, "20 seconds")
      assert.deepStrictEqual(failed.params, pkceRefusal)
      // its end is notified once to the connection, which asked twice
      assert.strictEqual(app.messages.filter(isLoginFailed).length, 1)

      const listed = JSON.stringify(resultOf(yield* app.request("mcpServer/list", {})))
      assertNoSecret(server, [app.stderr(), JSON.stringify(app.messages), listed, storeFiles(dataDir)].join("\n"))
    })
  )

  it.scopedLive(
    "scope step-up: a refused read sends scopeRequired and lists requiredScopes; the server stays ready; the next login asks for the union and the read works",
    () =>
      Effect.gen(function* () {
        const server = yield* fixtureWith({ stepUp: { method: "resources/read", scope: "mcp docs:read" } })
        const dataDir = tempDir()
        const app = yield* startInitialized({ config: configFor(server), dataDir })
        yield* waitSettled(app)
        const loginOnce = Effect.gen(function* () {
          const started = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
          const url = new URL(started.authorizationUrl as string)
          const count = app.messages.filter((m) => m.method === "mcpServer/oauth/loginCompleted").length
          assert.strictEqual(yield* Effect.promise(() => followAuthorization(url.href)), 200)
          yield* app.waitFor(
            () => app.messages.filter((m) => m.method === "mcpServer/oauth/loginCompleted").length > count,
            "20 seconds"
          )
          yield* waitSettled(app)
          return url.searchParams.get("scope")
        })
        assert.strictEqual(yield* loginOnce, "mcp")
        const { threadId, turnId } = yield* threadWithTurn(app)
        const read = (callId: string) =>
          Effect.map(
            app.request("tool/call", {
              threadId,
              turnId,
              callId,
              name: "read_mcp_resource",
              arguments: '{"server":"docs","uri":"example://docs/readme.md"}'
            }),
            (answer) => String(resultOf(answer).output)
          )
        assert.include(yield* read("c1"), Messages.oauth.scopeRequired("docs", "mcp docs:read"))
        const announced = yield* app.waitFor((m) => m.method === "mcpServer/oauth/scopeRequired", "20 seconds")
        assert.deepStrictEqual(announced.params, { server: "docs", requiredScopes: ["mcp", "docs:read"] })
        assert.deepStrictEqual(
          PublishedSchema.notificationProblems("mcpServer/oauth/scopeRequired", announced.params),
          []
        )
        const listed = resultOf(yield* app.request("mcpServer/list", {}))
        assert.deepStrictEqual(PublishedSchema.resultProblems("mcpServer/list", listed), [])
        assert.deepStrictEqual(listed.servers, [
          {
            name: "docs",
            status: "ready",
            transport: "http",
            httpTransport: "streamable",
            protocolVersion: "2025-11-25",
            // the OAuth fixture declares no resource subscriptions: its watched resources are polled
            changeDetection: "poll",
            auth: "loggedIn",
            requiredScopes: ["mcp", "docs:read"]
          }
        ])

        assert.strictEqual(yield* loginOnce, "mcp docs:read")
        const after = resultOf(yield* app.request("mcpServer/list", {}))
        assert.deepStrictEqual(after.servers, [
          {
            name: "docs",
            status: "ready",
            transport: "http",
            httpTransport: "streamable",
            protocolVersion: "2025-11-25",
            // the OAuth fixture declares no resource subscriptions: its watched resources are polled
            changeDetection: "poll",
            auth: "loggedIn"
          }
        ])
        assert.include(yield* read("c2"), "This server lists three resources")
        assertNoSecret(server, [app.stderr(), JSON.stringify(app.messages), storeFiles(dataDir)].join("\n"))
      })
  )

  it.scopedLive(
    "client_credentials: the server is ready at start without a login; mcpServer/oauth/login asks for a token at once; the secret is nowhere",
    () =>
      Effect.gen(function* () {
        const secret = "app-server-machine-secret"
        const server = yield* fixtureWith({ machineClients: [{ clientId: "svc", clientSecret: secret }] })
        const dataDir = tempDir()
        const config = writeConfig(tempDir(), {
          mcp_servers: {
            docs: {
              url: server.url,
              oauth_grant: "client_credentials",
              oauth_client_id: "svc",
              oauth_client_secret_env_var: "DOCS_CLIENT_SECRET"
            }
          }
        })
        const app = yield* startInitialized({ config, dataDir, env: { DOCS_CLIENT_SECRET: secret } })
        assert.deepStrictEqual(yield* waitSettled(app), [
          {
            name: "docs",
            status: "ready",
            transport: "http",
            httpTransport: "streamable",
            protocolVersion: "2025-11-25",
            // the OAuth fixture declares no resource subscriptions: its watched resources are polled
            changeDetection: "poll",
            auth: "loggedIn"
          }
        ])
        const started = resultOf(yield* app.request("mcpServer/oauth/login", { server: "docs" }))
        assert.deepStrictEqual(started, { authorizationUrl: "" })
        const done = yield* app.waitFor((m) => m.method === "mcpServer/oauth/loginCompleted", "20 seconds")
        assert.deepStrictEqual(done.params, { server: "docs", success: true })
        assert.strictEqual(server.counts.clientCredentials, 2)
        const tokens = readFileSync(join(dataDir, "oauth-tokens.json"), "utf8")
        assert.notInclude(tokens, secret)
        const listed = JSON.stringify(resultOf(yield* app.request("mcpServer/list", {})))
        // the client secret and both access tokens
        const haystack = [app.stderr(), JSON.stringify(app.messages), listed, storeFiles(dataDir)].join("\n")
        assert.deepStrictEqual(server.secrets().length, 3)
        for (const seen of [...server.secrets(), secret]) assert.notInclude(haystack, seen)
      })
  )
})

describe.skipIf(clusterUrl === undefined)(
  "OAuth tokens in PostgreSQL (driver postgres with MCP_RESOURCES_TOKEN_KEY)",
  () => {
    it.scopedLive(
      "a login through one app-server serves another with its own data dir; the table holds no secret; logout through the CLI ends both",
      () =>
        Effect.gen(function* () {
          const server = yield* fixture
          const url = yield* freshDatabase(clusterUrl!)
          const config = writeConfig(tempDir(), {
            mcp_servers: { docs: { url: server.url } },
            persistence: { driver: "postgres", url }
          })
          const env = { MCP_RESOURCES_TOKEN_KEY: randomBytes(32).toString("base64") }
          const [dirA, dirB] = [tempDir(), tempDir()]
          const a = yield* startInitialized({ config, dataDir: dirA, env })
          const b = yield* startInitialized({ config, dataDir: dirB, env })
          for (const app of [a, b]) {
            assert.deepStrictEqual(
              (yield* waitSettled(app)).map((s) => s.auth),
              ["loginRequired"]
            )
          }
          const started = resultOf(yield* a.request("mcpServer/oauth/login", { server: "docs" }))
          assert.strictEqual(yield* Effect.promise(() => followAuthorization(started.authorizationUrl as string)), 200)
          const done = yield* a.waitFor((m) => m.method === "mcpServer/oauth/loginCompleted", "20 seconds")
          assert.deepStrictEqual(done.params, { server: "docs", success: true })
          // B never saw the login: a new set finds it in PostgreSQL
          resultOf(yield* b.request("config/mcpServer/reload", {}))
          assert.deepStrictEqual(
            (yield* waitSettled(b)).map((s) => ({ status: s.status, auth: s.auth })),
            [{ status: "ready", auth: "loggedIn" }]
          )
          const { threadId, turnId } = yield* threadWithTurn(b)
          const read = yield* b.request("tool/call", {
            threadId,
            turnId,
            callId: "c1",
            name: "read_mcp_resource",
            arguments: '{"server":"docs","uri":"example://docs/readme.md"}'
          })
          assert.include(JSON.stringify(resultOf(read)), "example://docs/readme.md")
          for (const dir of [dirA, dirB]) {
            assert.notInclude(readdirSync(dir), "oauth-tokens.json", "no token file in a data dir")
          }
          assert.strictEqual(yield* psql(url, "SELECT server FROM oauth_tokens"), "docs")
          // logged out through the CLI on the same database
          const logout = yield* runCli(["logout", "docs", "--config", config, "--data-dir", tempDir()], env)
          assert.strictEqual(yield* logout.exited, 0, logout.stderr())
          assert.include(logout.stdout(), Messages.oauth.loggedOut("docs"))
          assert.strictEqual(yield* psql(url, "SELECT count(*) FROM oauth_tokens"), "0")
          const stored = yield* databaseText(url)
          assertNoSecret(
            server,
            [a.stderr(), b.stderr(), JSON.stringify(a.messages), JSON.stringify(b.messages), stored].join("\n")
          )
        }),
      60000
    )

    it.scopedLive(
      "a key that is not 32 bytes of base64 stops the app-server, naming the variable and not the value",
      () =>
        Effect.gen(function* () {
          const url = yield* freshDatabase(clusterUrl!)
          const config = writeConfig(tempDir(), { persistence: { driver: "postgres", url } })
          const value = randomBytes(16).toString("base64")
          const app = yield* start({
            args: ["--config", config, "--data-dir", tempDir()],
            env: { MCP_RESOURCES_TOKEN_KEY: value }
          })
          assert.strictEqual(yield* app.exited("20 seconds"), 1)
          assert.include(app.stderr(), "MCP_RESOURCES_TOKEN_KEY must be 32 random bytes in base64")
          assert.notInclude(app.stderr(), value)
        })
    )
  }
)
