/**
 * Several app-servers on one PostgreSQL store as one service (`--cluster`, `[cluster]`; docs/deploying.md):
 * three instances on one throw-away PostgreSQL cluster, a typed client on each, and the refusals at start.
 */
import { appendFileSync, writeFileSync } from "node:fs"
import { networkInterfaces } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AppServerClient } from "@mcp-resources/app-server-client"
import { Messages } from "@mcp-resources/protocol"
import {
  type ChangesLog,
  changesStdioCommand,
  exampleSpec,
  followAuthorization,
  readLog,
  startOAuthHttp,
  stdioCommand,
  widgetAppsSpec,
  widgetUri
} from "@mcp-resources/fixtures"
import { assert, describe, it } from "@effect/vitest"
import { type Duration, Effect, Either, Exit, Fiber, Queue, Schedule, Scope } from "effect"
import { inject } from "vitest"
import { freePort, mainJs, start, tempDir, writeConfig } from "./utils/AppServerProcess.js"
import { freshDatabase, psql } from "./utils/pg.js"

const cluster = inject("pgCluster")
const clusterUrl = "url" in cluster ? cluster.url : undefined
if (clusterUrl === undefined && "skipped" in cluster) {
  console.warn(`clustered app-server tests skipped: ${cluster.skipped}`)
}

/** The key every instance seals OAuth tokens with (a clustered app-server refuses to start without one). */
const tokenKey = Buffer.alloc(32, 7).toString("base64")

/** The widget apps server, the shared PostgreSQL store and the given `[cluster]` table. */
const clusterConfig = (persistence: Record<string, unknown>, table: Record<string, unknown> = { enabled: true }) =>
  writeConfig(tempDir(), {
    mcp_servers: { codex_apps: stdioCommand(widgetAppsSpec()) },
    persistence,
    cluster: table
  })

/** A clustered config on the store at `url` with the given `[mcp_servers]` (a reload test rewrites it). */
const clusteredOn = (url: string, servers: Record<string, unknown>) => ({
  mcp_servers: servers,
  persistence: { driver: "postgres", url },
  cluster: { enabled: true }
})

/** The bundled server (the package's bin): a clustered start loads its module from `cluster.cjs` beside it. */
const bundleMain = fileURLToPath(new URL("../dist/bundle/main.js", import.meta.url))

/** One instance (its own data dir) with a typed client on its standard input and output, initialized. */
const instance = (
  config: string,
  args: ReadonlyArray<string> = [],
  program: string = mainJs,
  stderr?: (text: string) => void
) =>
  Effect.gen(function* () {
    const client = yield* AppServerClient.stdio({
      command: process.execPath,
      args: [program, "--config", config, "--data-dir", tempDir(), ...args],
      env: { ...process.env, MCP_RESOURCES_TOKEN_KEY: tokenKey, MCP_RESOURCES_LOG: "info" },
      stderr: stderr ?? (process.env.DEBUG_CLUSTER ? "inherit" : "ignore")
    })
    yield* client.initialize({ name: "cluster-test" })
    return client
  })

/** The notifications of `queue` up to and including the first that `last` accepts (10 s at most). */
const collectUntil = (
  queue: Queue.Dequeue<AppServerClient.RawNotification>,
  what: string,
  last: (n: AppServerClient.RawNotification) => boolean,
  within: Duration.DurationInput = "10 seconds"
) =>
  Effect.gen(function* () {
    const seen: Array<AppServerClient.RawNotification> = []
    for (;;) {
      const next = yield* Queue.take(queue)
      // each instance's own MCP servers announce their status there only: not a thread's record
      if (next.method === "mcpServer/statusChanged") continue
      seen.push(next)
      if (last(next)) return seen
    }
  }).pipe(Effect.timeoutFail({ duration: within, onTimeout: () => new Error(`timed out waiting for ${what}`) }))

const isTurnStarted = (turnId: string) => (n: AppServerClient.RawNotification) =>
  n.method === "turn/started" && (n.params as { turnId?: unknown }).turnId === turnId

const toolCall = (client: AppServerClient.Service, threadId: string, turnId: string, callId: string) =>
  client.request("tool/call", {
    threadId,
    turnId,
    callId,
    name: "mcp__codex_apps__best_buy_product_search",
    arguments: JSON.stringify({ query: "tv" })
  })

/** A non-loopback IPv4 address of this machine (a runner address other hosts could reach), if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address

/** A port free on `host` now. */
/** The widget apps server with one more tool, `wait`, that never answers (a call in flight until its instance dies). */
const appsWithWait = () => {
  const spec = widgetAppsSpec()
  return { ...spec, tools: [...(spec.tools ?? []), { name: "wait", hang: true }] }
}

/** Waits until one of the request logs shows a `tools/call` of `tool`; its index (30 s at most). */
const whoseLogCalled = (logs: ReadonlyArray<string>, tool: string) =>
  Effect.suspend(() => {
    const index = logs.findIndex((log) =>
      readLog(log).some((r) => r.method === "tools/call" && (r.params as { name?: unknown } | undefined)?.name === tool)
    )
    return index === -1 ? Effect.fail("not yet" as const) : Effect.succeed(index)
  }).pipe(
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error(`no instance called ${tool}`) })
  )

/**
 * What the changes fixture of this instance's own `docs` connection holds (its `subscriptions` tool on an
 * ephemeral thread, which runs where it lives); with `until`, once that uri is subscribed there (10 s at most).
 */
const fixtureLog = (client: AppServerClient.Service, until?: string) =>
  Effect.gen(function* () {
    const { thread } = yield* client.request("thread/start", { ephemeral: true })
    yield* client.request("turn/start", { threadId: thread.id, turnId: "look" })
    const answer = yield* client.request("tool/call", {
      threadId: thread.id,
      turnId: "look",
      callId: "look",
      name: "mcp__docs__subscriptions",
      arguments: JSON.stringify(until === undefined ? {} : { until })
    })
    yield* client.request("thread/delete", { threadId: thread.id })
    // the call's output on a codex thread: the MCP result, whose text is the log
    const result = JSON.parse(answer.output) as { readonly content: ReadonlyArray<{ readonly text: string }> }
    return JSON.parse(result.content[0]!.text) as ChangesLog
  })

/** From now on, the client's `mcpServer/oauth/loginCompleted` params, one per run of the answered effect (30 s at most). */
const loginCompletions = (client: AppServerClient.Service) =>
  Effect.map(client.subscribeRaw, (queue) =>
    Effect.flatMap(Queue.take(queue), function next(n): Effect.Effect<unknown> {
      return n.method === "mcpServer/oauth/loginCompleted"
        ? Effect.succeed(n.params)
        : Effect.flatMap(Queue.take(queue), next)
    }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("no loginCompleted") }))
  )

/** The example docs behind a real OAuth authorization server, closed with the scope. */
const oauthServer = Effect.acquireRelease(
  Effect.promise(() => startOAuthHttp(exampleSpec())),
  (f) => Effect.promise(() => f.close())
)

/** Waits until `docs` is ready and logged in on each of `clients` (30 s each at most). */
const loggedInOnEach = (clients: ReadonlyArray<AppServerClient.Service>) =>
  Effect.forEach(clients, (client) =>
    Effect.map(
      AppServerClient.awaitServer(client, "docs", {
        timeout: "30 seconds",
        until: (entry) => entry.status === "ready"
      }),
      (docs) => assert.strictEqual(docs.auth, "loggedIn", "docs is logged in on every instance")
    )
  )

/**
 * A fresh database and a clustered config whose `docs` server (each instance's own fixture process)
 * announces the uris appended to `touched`, when it subscribed them.
 */
const changesCluster = Effect.gen(function* () {
  const url = yield* freshDatabase(clusterUrl!)
  const touched = join(tempDir(), "touched")
  writeFileSync(touched, "")
  const config = writeConfig(tempDir(), clusteredOn(url, { docs: changesStdioCommand({ touchFile: touched }) }))
  return { url, touched, config }
})

/** Waits until the thread's entity is kept alive by `count` unprocessed stored messages (20 s at most). */
const keptAliveBy = (url: string, threadId: string, count: number) =>
  psql(
    url,
    `select count(*) from mcp_resources_cluster_messages where entity_id = '${threadId}' and tag = 'Cluster/Entity/keepAlive' and not processed`
  ).pipe(
    Effect.filterOrFail(
      (out) => Number(out.trim()) === count,
      (out) => new Error(`${out.trim()} unprocessed keep-alive messages of thread ${threadId}, not ${count}`)
    ),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("20 seconds")))
  )

/** Which of `candidates` (indexes of `clients`) has its own fixture process subscribed to `uri`: asked `rounds` times at most (10 s each). */
const subscriberAmong = (
  clients: ReadonlyArray<AppServerClient.Service>,
  candidates: ReadonlyArray<number>,
  uri: string,
  rounds: number
) =>
  Effect.gen(function* () {
    for (let round = 0; round < rounds; round++) {
      const logs = yield* Effect.forEach(candidates, (i) => fixtureLog(clients[i]!, uri), { concurrency: "unbounded" })
      const found = logs.findIndex((log) => log.subscribed.includes(uri))
      if (found !== -1) return candidates[found]
    }
    return undefined
  })

const isChanged = (uri: string) => (n: AppServerClient.RawNotification) =>
  n.method === "mcp/resource/changed" && (n.params as { uri?: unknown }).uri === uri

describe.skipIf(clusterUrl === undefined)("three clustered app-servers on one PostgreSQL database", () => {
  it.scopedLive(
    "a thread started on A is served by B and C: A's records reach C's subscriber once and in order, B reads A's call's widget and lists A's turns, rollback and deletion",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        // two instances turned on by the config, one by the flag
        const config = clusterConfig({ driver: "postgres", url })
        const flagged = clusterConfig({ driver: "postgres", url }, {})
        const [a, b, c] = yield* Effect.all([instance(config), instance(config), instance(flagged, ["--cluster"])], {
          concurrency: "unbounded"
        })
        const onA = yield* a.subscribeRaw
        const onC = yield* c.subscribeRaw

        // item 1: a thread started on A is resumed on B and C
        const { thread } = yield* a.request("thread/start", {})
        assert.deepStrictEqual(yield* b.request("thread/resume", { threadId: thread.id }), {
          thread: { id: thread.id, ephemeral: false }
        })
        yield* c.request("thread/resume", { threadId: thread.id })

        // item 2: B (which loaded the thread before the call) reads the widget of A's call right after A's answer
        yield* a.request("turn/start", { threadId: thread.id, turnId: "t1" })
        const called = yield* toolCall(a, thread.id, "t1", "c1")
        assert.strictEqual(called.success, true)
        assert.deepStrictEqual(
          yield* b.request("mcp/resource/read", {
            threadId: thread.id,
            originCallId: "c1",
            server: "codex_apps",
            uri: widgetUri
          }),
          {
            contents: [{ uri: widgetUri, mimeType: "text/html", text: "<html>best_buy</html>" }],
            originCallId: "c1"
          }
        )
        // and knows A's turn: the same call id is a duplicate there, A's turn one it may call in
        const duplicate = yield* Effect.flip(toolCall(b, thread.id, "t1", "c1"))
        assert.deepStrictEqual(duplicate.message, "duplicate callId: c1")
        yield* a.request("turn/start", { threadId: thread.id, turnId: "t2" })
        yield* a.request("thread/rollback", { threadId: thread.id, numTurns: 1 })
        const unknownTurn = yield* Effect.flip(toolCall(b, thread.id, "t2", "c2"))
        assert.deepStrictEqual(unknownTurn.message, "turn not found: t2")
        assert.deepStrictEqual(yield* b.request("thread/list", {}), yield* a.request("thread/list", {}))

        // item 3: C's subscriber received exactly A's notifications, in A's order (t3 marks the end)
        yield* a.request("turn/start", { threadId: thread.id, turnId: "t3" })
        const fromA = yield* collectUntil(onA, "turn t3 on A", isTurnStarted("t3"))
        const fromC = yield* collectUntil(onC, "turn t3 on C", isTurnStarted("t3"))
        assert.deepStrictEqual(
          fromA.map((n) => n.method),
          ["turn/started", "item/started", "item/completed", "turn/started", "thread/rolledBack", "turn/started"]
        )
        assert.deepStrictEqual(fromC, fromA)
        // B's own records reach A and C the same way
        yield* b.request("turn/start", { threadId: thread.id, turnId: "t4" })
        assert.deepStrictEqual(yield* collectUntil(onA, "B's turn on A", isTurnStarted("t4")), [
          { method: "turn/started", params: { threadId: thread.id, turnId: "t4" } }
        ])
        assert.deepStrictEqual(yield* collectUntil(onC, "B's turn on C", isTurnStarted("t4")), [
          { method: "turn/started", params: { threadId: thread.id, turnId: "t4" } }
        ])

        // a deletion on A: B lists no thread and no longer serves it
        yield* a.request("thread/delete", { threadId: thread.id })
        assert.deepStrictEqual(yield* b.request("thread/list", {}), { threads: [] })
        const gone = yield* Effect.flip(b.request("turn/start", { threadId: thread.id, turnId: "t5" }))
        assert.strictEqual(gone.message, `thread not found: ${thread.id}`)
      }),
    120_000
  )

  it.scopedLive(
    "an instance whose listening connections were lost listens again, sends its subscribers the records it missed and reads its config again",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const dir = tempDir()
        const apps = stdioCommand(widgetAppsSpec())
        const config = writeConfig(dir, clusteredOn(url, { codex_apps: apps }))
        const [a, c] = yield* Effect.all([instance(config), instance(config)], { concurrency: "unbounded" })
        const onC = yield* c.subscribeRaw
        const { thread } = yield* a.request("thread/start", {})
        yield* c.request("thread/resume", { threadId: thread.id })
        // every instance's listening connections (threads and instances) are cut; A's turn and A's
        // config reload are announced while nobody listens
        const cut = yield* psql(
          url,
          "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'"
        )
        assert.strictEqual(cut, "4")
        yield* a.request("turn/start", { threadId: thread.id, turnId: "t1" })
        writeConfig(dir, clusteredOn(url, { codex_apps: apps, docs: stdioCommand(exampleSpec()) }))
        yield* a.request("config/mcpServer/reload", {})
        // C finds its connections lost at its next check (every 10 s), listens again and catches up
        const received = yield* collectUntil(onC, "the missed turn on C", isTurnStarted("t1"), "30 seconds")
        assert.deepStrictEqual(received, [{ method: "turn/started", params: { threadId: thread.id, turnId: "t1" } }])
        // and, having perhaps missed a reload, reads its config file again
        const docs = yield* AppServerClient.awaitServer(c, "docs", { timeout: "30 seconds" })
        assert.strictEqual(docs.status, "ready")
      }),
    90_000
  )

  it.scopedLive(
    "a config reload on one instance is announced to the others, and each reloads its own config file",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const dir = tempDir()
        const apps = stdioCommand(widgetAppsSpec())
        const config = writeConfig(dir, clusteredOn(url, { codex_apps: apps }))
        const [a, b] = yield* Effect.all([instance(config), instance(config)], { concurrency: "unbounded" })
        const names = (client: AppServerClient.Service) =>
          Effect.map(client.request("mcpServer/list", {}), (listed) => listed.servers.map((s) => s.name).sort())
        assert.deepStrictEqual(yield* names(b), ["codex_apps"])
        // the file gains a server; only A is asked to reload
        writeConfig(dir, clusteredOn(url, { codex_apps: apps, docs: stdioCommand(exampleSpec()) }))
        yield* a.request("config/mcpServer/reload", {})
        assert.deepStrictEqual(yield* names(a), ["codex_apps", "docs"])
        // B hears of it and reloads the file itself: its new server starts and is announced to B's client
        const docs = yield* AppServerClient.awaitServer(b, "docs", { timeout: "30 seconds" })
        assert.strictEqual(docs.status, "ready")
        assert.deepStrictEqual(yield* names(b), ["codex_apps", "docs"])
      }),
    60_000
  )

  it.scopedLive(
    "ordered requests on one thread from clients of three instances are serialized by its owner: every one succeeds and every instance sends them in one order",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const config = clusterConfig({ driver: "postgres", url })
        const clients = yield* Effect.all([instance(config), instance(config), instance(config)], {
          concurrency: "unbounded"
        })
        const [a, b, c] = clients
        const { thread } = yield* a!.request("thread/start", {})
        yield* b!.request("thread/resume", { threadId: thread.id })
        yield* c!.request("thread/resume", { threadId: thread.id })
        const queues = yield* Effect.forEach(clients, (client) => client.subscribeRaw)
        // each client starts turns and calls in them, the three at once, each waiting for its own answers
        const rounds = 6
        yield* Effect.forEach(
          clients,
          (client, i) =>
            Effect.forEach(
              Array.from({ length: rounds }, (_, round) => round),
              (round) =>
                Effect.gen(function* () {
                  const turnId = `t${i}-${round}`
                  yield* client.request("turn/start", { threadId: thread.id, turnId })
                  const called = yield* toolCall(client, thread.id, turnId, `c${i}-${round}`)
                  assert.strictEqual(called.success, true)
                }),
              { discard: true }
            ),
          { concurrency: "unbounded", discard: true }
        )
        // a last turn marks the end; every instance's subscriber received the same records in the same order
        yield* a!.request("turn/start", { threadId: thread.id, turnId: "end" })
        const received = yield* Effect.forEach(queues, (queue, i) =>
          collectUntil(queue, `the last turn on instance ${i}`, isTurnStarted("end"), "30 seconds")
        )
        const turns = received[0]!.filter((n) => n.method === "turn/started")
        assert.strictEqual(turns.length, 3 * rounds + 1)
        assert.strictEqual(received[0]!.filter((n) => n.method === "item/completed").length, 3 * rounds)
        assert.deepStrictEqual(received[1], received[0])
        assert.deepStrictEqual(received[2], received[0])
      }),
    120_000
  )

  it.scopedLive(
    "a thread's resource changes are detected by its owner only and reach its connections on every instance, once per update; when the owner stops, the next one detects them, and when that one stops, the last one",
    () =>
      Effect.gen(function* () {
        const { url, touched, config } = yield* changesCluster
        const doc = "changes://doc/a"
        const scopes = yield* Effect.forEach([0, 1, 2], () => Scope.make())
        const clients = yield* Effect.forEach(scopes, (scope) => Scope.extend(instance(config), scope), {
          concurrency: "unbounded"
        })
        yield* Effect.addFinalizer(() => Effect.forEach(scopes, (scope) => Scope.close(scope, Exit.void)))
        const [a, b, c] = clients as [AppServerClient.Service, AppServerClient.Service, AppServerClient.Service]
        const queues = yield* Effect.forEach(clients, (client) => client.subscribeRaw)
        const { thread } = yield* a.request("thread/start", { config: { toolProfile: "extended" } })
        yield* b.request("thread/resume", { threadId: thread.id })
        // a UI on B subscribes the thread (its owner makes the subscription); C loads the thread after it
        assert.deepStrictEqual(
          yield* b.request("mcp/resource/subscribe", { threadId: thread.id, server: "docs", uri: doc }),
          { subscribed: true }
        )
        yield* c.request("thread/resume", { threadId: thread.id })

        // two updates: each reaches every instance's connection of the thread once
        for (const round of [1, 2]) {
          appendFileSync(touched, `${doc}\n`)
          const received: Array<unknown> = []
          for (const [i, queue] of queues.entries()) {
            const seen = yield* collectUntil(queue, `change ${round} on instance ${i}`, isChanged(doc), "20 seconds")
            assert.deepStrictEqual(
              seen.map((n) => n.method),
              ["mcp/resource/changed"]
            )
            assert.include(seen[0]!.params as object, { threadId: thread.id, server: "docs", uri: doc })
            received.push(seen[0]!.params)
          }
          // the owner's connection got it from its tracker, the others from its record: the same change
          assert.deepStrictEqual(received[1], received[0])
          assert.deepStrictEqual(received[2], received[0])
        }
        // a turn marks the end: no instance got a change more
        yield* a.request("turn/start", { threadId: thread.id, turnId: "end" })
        for (const [i, queue] of queues.entries())
          assert.deepStrictEqual(
            (yield* collectUntil(queue, `the end on instance ${i}`, isTurnStarted("end"))).map((n) => n.method),
            ["turn/started"]
          )
        // only one instance, the owner, subscribed on the wire (once)
        const logs = yield* Effect.forEach(clients, (client) => fixtureLog(client))
        const owners = logs.flatMap((log, i) => (log.subscribed.includes(doc) ? [i] : []))
        assert.strictEqual(owners.length, 1, JSON.stringify(logs))
        const owner = owners[0]!
        // (instances that joined later may have taken shards over from it right after the start: an
        // instance the thread's shard left subscribed and then unsubscribed, in that order)
        for (const [i, log] of logs.entries()) {
          const pairs = i === owner ? log.requests.slice(0, -1) : log.requests
          if (i === owner) assert.deepStrictEqual(log.requests.at(-1), { method: "subscribe", uri: doc })
          assert.deepStrictEqual(
            pairs,
            pairs.map((_, k) => ({ method: k % 2 === 0 ? "subscribe" : "unsubscribe", uri: doc }))
          )
        }

        // the owner stops: its shards move, and the next owner (started by the entity's kept-alive message)
        // subscribes on its own connection, without any request for the thread
        yield* Scope.close(scopes[owner]!, Exit.void)
        const survivors = [0, 1, 2].filter((i) => i !== owner)
        const next = yield* subscriberAmong(clients, survivors, doc, 6)
        assert.isDefined(next, "no surviving instance subscribed the thread's resource")
        appendFileSync(touched, `${doc}\n`)
        for (const i of survivors) {
          const seen = yield* collectUntil(
            queues[i]!,
            `the change after the move on instance ${i}`,
            isChanged(doc),
            "20 seconds"
          )
          // (the ephemeral threads that looked at the fixtures sent their own notifications meanwhile)
          const ofThread = seen.filter((n) => (n.params as { threadId?: unknown }).threadId === thread.id)
          assert.deepStrictEqual(
            ofThread.map((n) => n.method),
            ["mcp/resource/changed"]
          )
        }

        // the thread's entity is kept alive by one stored message while it holds subscriptions (the next owner
        // answers one of the dead one's and its own as it takes the thread up: awaited)
        yield* keptAliveBy(url, thread.id, 1)

        // that owner stops too: the last instance is started by the same stored message and detects
        yield* Scope.close(scopes[next]!, Exit.void)
        const last = survivors.find((i) => i !== next)!
        assert.strictEqual(
          yield* subscriberAmong(clients, [last], doc, 6),
          last,
          "the last instance did not subscribe the thread's resource"
        )
        appendFileSync(touched, `${doc}\n`)
        const seen = yield* collectUntil(
          queues[last]!,
          "the change after the second move",
          isChanged(doc),
          "20 seconds"
        )
        assert.deepStrictEqual(
          seen.filter((n) => (n.params as { threadId?: unknown }).threadId === thread.id).map((n) => n.method),
          ["mcp/resource/changed"]
        )
        yield* keptAliveBy(url, thread.id, 1)
        // deleted, the thread holds nothing: no message keeps its entity alive
        yield* clients[last]!.request("thread/delete", { threadId: thread.id })
        yield* keptAliveBy(url, thread.id, 0)
      }),
    180_000
  )

  it.scopedLive(
    "a takeover the store refuses for a while is tried again: the next owner detects the thread's changes once the store is back",
    () =>
      Effect.gen(function* () {
        const { url, touched, config } = yield* changesCluster
        const doc = "changes://doc/a"
        const scopes = yield* Effect.forEach([0, 1, 2], () => Scope.make())
        yield* Effect.addFinalizer(() => Effect.forEach(scopes, (scope) => Scope.close(scope, Exit.void)))
        // each instance's log, to see the next owner's refused takeover
        const logs = ["", "", ""]
        const clients = yield* Effect.forEach(
          scopes,
          (scope, i) =>
            Scope.extend(
              instance(config, [], mainJs, (text) => {
                logs[i] += text
              }),
              scope
            ),
          { concurrency: "unbounded" }
        )
        const queues = yield* Effect.forEach(clients, (client) => client.subscribeRaw)
        const { thread } = yield* clients[0]!.request("thread/start", { config: { toolProfile: "extended" } })
        assert.deepStrictEqual(
          yield* clients[0]!.request("mcp/resource/subscribe", { threadId: thread.id, server: "docs", uri: doc }),
          { subscribed: true }
        )
        appendFileSync(touched, `${doc}\n`)
        yield* collectUntil(queues[0]!, "the first change", isChanged(doc), "20 seconds")
        const fixtures = yield* Effect.forEach(clients, (client) => fixtureLog(client))
        const owner = fixtures.findIndex((log) => log.subscribed.includes(doc))
        assert.notStrictEqual(owner, -1, JSON.stringify(fixtures))

        // the threads' table is out of reach while the owner and the instance that loaded the thread stop:
        // the next owner, which never loaded it, fails to take it over from the store
        yield* psql(url, "ALTER TABLE threads RENAME TO threads_away")
        const stopped = new Set([0, owner])
        yield* Effect.forEach(stopped, (i) => Scope.close(scopes[i]!, Exit.void))
        const survivors = [0, 1, 2].filter((i) => !stopped.has(i))
        const refused = `thread ${thread.id} not taken over yet`
        yield* Effect.suspend(() =>
          survivors.some((i) => logs[i]!.includes(refused)) ? Effect.void : Effect.fail("not yet" as const)
        ).pipe(
          Effect.retry(Schedule.spaced("50 millis")),
          Effect.timeoutFail({
            duration: "30 seconds",
            onTimeout: () =>
              new Error(`no "${refused}" in the survivors' logs:\n${survivors.map((i) => logs[i]).join("\n")}`)
          })
        )
        // the store is back: the takeover is tried again, and the next owner subscribes and detects
        yield* psql(url, "ALTER TABLE threads_away RENAME TO threads")
        // (the cluster starts the failed entity again with its own backoff: up to 10 s apart)
        const next = yield* subscriberAmong(clients, survivors, doc, 4)
        assert.isDefined(next, "no surviving instance subscribed the thread's resource")
        yield* clients[next]!.request("thread/resume", { threadId: thread.id })
        appendFileSync(touched, `${doc}\n`)
        const seen = yield* collectUntil(queues[next]!, "the change after the takeover", isChanged(doc), "20 seconds")
        assert.deepStrictEqual(
          seen.filter((n) => (n.params as { threadId?: unknown }).threadId === thread.id).map((n) => n.method),
          ["mcp/resource/changed"]
        )
      }),
    120_000
  )

  it.scopedLive(
    "the owner keeps a thread a client loaded first after every client left: its subscription stays on the wire, and a client that comes back is told of the next change",
    () =>
      Effect.gen(function* () {
        const { touched, config } = yield* changesCluster
        const doc = "changes://doc/a"
        const port = yield* freePort()
        // one instance (no shard moves while the test runs: it owns every thread); a thread no connection
        // holds is unloaded after 1 s
        const owner = yield* instance(config, ["--listen", `ws://127.0.0.1:${port}`, "--thread-idle-timeout", "1"])
        // clients that come and go, over the listener
        const visit = Effect.gen(function* () {
          const scope = yield* Scope.make()
          yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
          const client = yield* AppServerClient.webSocket({ url: `ws://127.0.0.1:${port}` }).pipe(
            Scope.extend(scope),
            Effect.orDie
          )
          yield* client.initialize({ name: "cluster-test" })
          return { client, leave: Scope.close(scope, Exit.void) }
        })
        // the client loads the thread before the owner takes it over (at the subscribe, the entity's start)
        const first = yield* visit
        const { thread } = yield* first.client.request("thread/start", { config: { toolProfile: "extended" } })
        assert.deepStrictEqual(
          yield* first.client.request("mcp/resource/subscribe", { threadId: thread.id, server: "docs", uri: doc }),
          { subscribed: true }
        )
        assert.include((yield* fixtureLog(owner, doc)).subscribed, doc)
        // the client leaves; nothing tells that a thread stayed loaded: its idle time passes three times over
        yield* first.leave
        yield* Effect.sleep("3 seconds")
        const after = yield* fixtureLog(owner)
        assert.include(after.subscribed, doc, "the owner still holds the subscription")
        assert.deepStrictEqual(after.requests, [{ method: "subscribe", uri: doc }])
        // a client comes back and is told of the next change, detected by the owner
        const back = yield* visit
        const queue = yield* back.client.subscribeRaw
        yield* back.client.request("thread/resume", { threadId: thread.id })
        appendFileSync(touched, `${doc}\n`)
        const seen = yield* collectUntil(queue, "the change after the client left", isChanged(doc), "20 seconds")
        assert.include(seen.at(-1)!.params as object, { threadId: thread.id, server: "docs", uri: doc })
      }),
    90_000
  )

  it.scopedLive(
    "the bundled bins serve as clustered instances: an unbundled and a bundled one share a thread, its owner runs the requests of both",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const config = clusterConfig({ driver: "postgres", url })
        const [a, b] = yield* Effect.all([instance(config), instance(config, [], bundleMain)], {
          concurrency: "unbounded"
        })
        const onA = yield* a.subscribeRaw
        const { thread } = yield* b.request("thread/start", {})
        yield* a.request("thread/resume", { threadId: thread.id })
        for (const [client, turnId] of [
          [a, "t1"],
          [b, "t2"],
          [a, "t3"]
        ] as const) {
          yield* client.request("turn/start", { threadId: thread.id, turnId })
          assert.strictEqual((yield* toolCall(client, thread.id, turnId, `c-${turnId}`)).success, true)
        }
        yield* b.request("thread/rollback", { threadId: thread.id, numTurns: 1 })
        const unknown = yield* Effect.flip(toolCall(a, thread.id, "t3", "c4"))
        assert.strictEqual(unknown.message, "turn not found: t3")
        yield* b.request("turn/start", { threadId: thread.id, turnId: "end" })
        const seen = yield* collectUntil(onA, "the last turn on A", isTurnStarted("end"))
        assert.deepStrictEqual(
          seen.map((n) => n.method),
          [
            ...["turn/started", "item/started", "item/completed"],
            ...["turn/started", "item/started", "item/completed"],
            ...["turn/started", "item/started", "item/completed"],
            "thread/rolledBack",
            "turn/started"
          ]
        )
      }),
    90_000
  )

  it.scopedLive(
    "SIGKILL of the instance running a call: the new owner closes its item as interrupted once the shard lock expired, the caller gets the failed call, and the thread takes new calls",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        // one config per instance, each with its own request log of the apps server (which instance runs the call)
        const logs = [0, 1, 2].map(() => join(tempDir(), "requests.log"))
        const configs = logs.map((log) =>
          writeConfig(tempDir(), {
            mcp_servers: { codex_apps: stdioCommand(appsWithWait(), { logFile: log }) },
            persistence: { driver: "postgres", url },
            cluster: { enabled: true, lock_expiration_sec: 3 }
          })
        )
        const clients = yield* Effect.all(
          configs.map((config) => instance(config)),
          { concurrency: "unbounded" }
        )
        const { thread } = yield* clients[0]!.request("thread/start", {})
        for (const client of clients.slice(1)) yield* client.request("thread/resume", { threadId: thread.id })
        const queues = yield* Effect.forEach(clients, (client) => client.subscribeRaw)
        yield* clients[1]!.request("turn/start", { threadId: thread.id, turnId: "t1" })
        // B's call runs on the thread's owner, whichever instance that is; it never answers
        const call = yield* Effect.fork(
          Effect.either(
            clients[1]!.request("tool/call", {
              threadId: thread.id,
              turnId: "t1",
              callId: "c1",
              name: "mcp__codex_apps__wait",
              arguments: "{}"
            })
          )
        )
        const owner = yield* whoseLogCalled(logs, "wait")
        if (process.env.DEBUG_CLUSTER) console.log(`owner: instance ${owner}`)
        process.kill(clients[owner]!.pid!, "SIGKILL")
        const survivors = [0, 1, 2].filter((i) => i !== owner)
        const survivor = survivors[0]!
        // a client of a surviving instance resumes the thread (as the dead instance's clients would)
        yield* clients[survivor]!.request("thread/resume", { threadId: thread.id })
        const isClosed = (n: AppServerClient.RawNotification) =>
          n.method === "item/completed" && (n.params as { item?: { id?: unknown } }).item?.id === "c1"
        const seen = yield* collectUntil(queues[survivor]!, "c1 closed as interrupted", isClosed, "60 seconds")
        const closed = seen.at(-1)!.params as { item: { status: string; error: unknown } }
        assert.strictEqual(closed.item.status, "failed")
        assert.deepStrictEqual(closed.item.error, { message: "interrupted" })
        // B's own call answers as the failed call it was recorded as, unless B was the one that died
        const answered = yield* Fiber.join(call)
        if (owner !== 1) {
          assert.isTrue(Either.isRight(answered))
          assert.deepStrictEqual(Either.getOrThrow(answered), { callId: "c1", output: "interrupted", success: false })
        }
        // every acknowledged record is there, and the thread takes a new call
        const again = yield* Effect.flip(toolCall(clients[survivor]!, thread.id, "t1", "c1"))
        assert.strictEqual(again.message, "duplicate callId: c1")
        const next = yield* toolCall(clients[survivors[1]!]!, thread.id, "t1", "c2")
        assert.strictEqual(next.success, true)
      }),
    120_000
  )

  it.scopedLive(
    "a non-loopback runner address starts only with MCP_RESOURCES_CLUSTER_SECRET",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const config = clusterConfig({ driver: "postgres", url }, { enabled: true, runner_address: "10.0.0.7:7400" })
        const refused = yield* start({
          args: ["--config", config, "--data-dir", tempDir()],
          env: { MCP_RESOURCES_CLUSTER_SECRET: "" }
        })
        assert.strictEqual(yield* refused.exited("60 seconds"), 1)
        assert.include(
          refused.stderr(),
          '[cluster] runner_address = "10.0.0.7:7400" is not a loopback address: set MCP_RESOURCES_CLUSTER_SECRET'
        )
        assert.deepStrictEqual(refused.lines, [])
        // the secret alone is not enough: the instances must share their OAuth tokens too
        const keyless = yield* start({
          args: ["--config", config, "--data-dir", tempDir()],
          env: { MCP_RESOURCES_CLUSTER_SECRET: "a shared secret", MCP_RESOURCES_TOKEN_KEY: "" }
        })
        assert.strictEqual(yield* keyless.exited("60 seconds"), 1)
        assert.include(
          keyless.stderr(),
          "a clustered app-server keeps OAuth tokens in PostgreSQL for every instance: set MCP_RESOURCES_TOKEN_KEY"
        )
        assert.deepStrictEqual(keyless.lines, [])
        // an address this host does not have is refused, naming it
        const elsewhere = yield* start({
          args: ["--config", config, "--data-dir", tempDir()],
          env: { MCP_RESOURCES_CLUSTER_SECRET: "a shared secret", MCP_RESOURCES_TOKEN_KEY: tokenKey }
        })
        assert.strictEqual(yield* elsewhere.exited("60 seconds"), 1)
        assert.include(elsewhere.stderr(), 'cannot listen on [cluster] runner_address = "10.0.0.7:7400"')
        if (outsideAddress === undefined) {
          console.warn(
            "two runners on a non-loopback address not started: this machine has no non-loopback IPv4 address"
          )
          return
        }
        // two instances whose runners listen on this host's outside address: they work together with the
        // secret, and a runner port answers nobody without it
        const ports = [yield* freePort(outsideAddress), yield* freePort(outsideAddress)]
        const [a, b] = yield* Effect.forEach(ports, (port) =>
          AppServerClient.stdio({
            command: process.execPath,
            args: [
              mainJs,
              "--config",
              clusterConfig(
                { driver: "postgres", url },
                { enabled: true, runner_address: `${outsideAddress}:${port}` }
              ),
              "--data-dir",
              tempDir()
            ],
            env: { ...process.env, MCP_RESOURCES_CLUSTER_SECRET: "a shared secret", MCP_RESOURCES_TOKEN_KEY: tokenKey },
            stderr: "ignore"
          }).pipe(Effect.tap((client) => client.initialize({ name: "cluster-test" })))
        )
        const { thread } = yield* a!.request("thread/start", {})
        yield* b!.request("thread/resume", { threadId: thread.id })
        // turns from both instances, each run by the thread's owner (the other instance for one of them)
        yield* a!.request("turn/start", { threadId: thread.id, turnId: "t1" })
        yield* b!.request("turn/start", { threadId: thread.id, turnId: "t2" })
        assert.strictEqual((yield* toolCall(a!, thread.id, "t2", "c1")).success, true)
        for (const headers of [{}, { "x-mcp-resources-cluster-secret": "a wrong secret" }]) {
          const response = yield* Effect.promise(() =>
            fetch(`http://${outsideAddress}:${ports[0]}/`, { method: "POST", headers, body: "{}" })
          )
          assert.strictEqual(response.status, 403)
        }
      }),
    90_000
  )

  it.scopedLive(
    "one OAuth login for every instance: a second instance answers the login in progress, and its end brings the server up and is told on every instance",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const server = yield* oauthServer
        const config = writeConfig(tempDir(), clusteredOn(url, { docs: { url: server.url } }))
        const [a, b, c] = yield* Effect.all([instance(config), instance(config), instance(config)], {
          concurrency: "unbounded"
        })
        for (const client of [a, b, c]) {
          const docs = yield* AppServerClient.awaitServer(client, "docs", { timeout: "30 seconds" })
          assert.deepStrictEqual([docs.status, docs.auth], ["failed", "loginRequired"])
        }
        const [onA, onB, onC] = yield* Effect.all([loginCompletions(a), loginCompletions(b), loginCompletions(c)])
        const login = (client: AppServerClient.Service) =>
          Effect.map(client.request("mcpServer/oauth/login", { server: "docs" }), (r) => r.authorizationUrl)
        // A starts the login; B, asked while it is in progress, answers the same URL: one flow
        const started = yield* login(a)
        assert.ok(started.startsWith(`${server.issuer}/authorize?`), started)
        assert.strictEqual(yield* login(b), started)
        assert.strictEqual(server.counts.authorizations, 0)
        assert.strictEqual(yield* Effect.promise(() => followAuthorization(started)), 200)
        // both connections that asked are told, each once, on their own instance
        const [endA, endB] = yield* Effect.all([onA, onB], { concurrency: "unbounded" })
        assert.deepStrictEqual(endA, { server: "docs", success: true })
        assert.deepStrictEqual(endB, { server: "docs", success: true })
        assert.strictEqual(server.counts.codeExchanges, 1)
        // the server comes up on every instance, C's too (it asked for nothing), with the stored tokens
        yield* loggedInOnEach([a, b, c])
        const { thread } = yield* c.request("thread/start", {})
        yield* c.request("turn/start", { threadId: thread.id, turnId: "t1" })
        const read = yield* c.request("tool/call", {
          threadId: thread.id,
          turnId: "t1",
          callId: "c1",
          name: "list_mcp_resources",
          arguments: '{"server":"docs"}'
        })
        assert.include(JSON.stringify(read), "example://docs/readme.md")

        // a login asked for afterwards is a new one, here run by B; its refusal reaches A's client too
        const again = yield* login(b)
        assert.notStrictEqual(again, started)
        assert.strictEqual(yield* login(a), again)
        const refused = new URL(again)
        refused.searchParams.set("code_challenge_method", "plain")
        yield* Effect.promise(() => followAuthorization(refused.href))
        const failure = {
          server: "docs",
          success: false,
          error: Messages.oauth.refused("docs", "invalid_request (PKCE with S256 is required)")
        }
        const [failedA, failedB] = yield* Effect.all([onA, onB], { concurrency: "unbounded" })
        assert.deepStrictEqual(failedA, failure)
        assert.deepStrictEqual(failedB, failure)
        // C's client asked for neither login: it was told of none
        assert.isTrue(Exit.isFailure(yield* Effect.exit(Effect.timeout(onC, "1 second"))))
      }),
    90_000
  )

  it.scopedLive(
    "[oauth] redirect_url: a login started on A is completed by the instance its redirect reaches (C), from the login kept in the store; A's and B's clients are told",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase(clusterUrl!)
        const server = yield* oauthServer
        const ports = yield* Effect.all([freePort("127.0.0.1"), freePort("127.0.0.1"), freePort("127.0.0.1")])
        // the load balancer's address in production; here C's listener, where every redirect goes
        const redirectUrl = `http://127.0.0.1:${ports[2]}/oauth/callback`
        const config = writeConfig(tempDir(), {
          ...clusteredOn(url, { docs: { url: server.url } }),
          oauth: { redirect_url: redirectUrl }
        })
        const [a, b, c] = yield* Effect.all(
          ports.map((port) => instance(config, ["--listen", `ws://127.0.0.1:${port}`])),
          { concurrency: "unbounded" }
        )
        const [onA, onB] = yield* Effect.all([loginCompletions(a), loginCompletions(b)])
        const started = (yield* a.request("mcpServer/oauth/login", { server: "docs" })).authorizationUrl
        assert.strictEqual(new URL(started).searchParams.get("redirect_uri"), redirectUrl)
        assert.strictEqual((yield* b.request("mcpServer/oauth/login", { server: "docs" })).authorizationUrl, started)
        // a redirect with another state is a stray: answered 400, the login goes on; another path is not served
        const stray = yield* Effect.promise(() => fetch(`${redirectUrl}?code=x&state=forged.ZG9jcw`))
        assert.strictEqual(stray.status, 400)
        const other = yield* Effect.promise(() => fetch(`http://127.0.0.1:${ports[2]}/elsewhere`))
        assert.strictEqual(other.status, 426)
        const posted = yield* Effect.promise(() =>
          fetch(`${redirectUrl}?code=x&state=forged.ZG9jcw`, { method: "POST" })
        )
        assert.strictEqual(posted.status, 426)
        const unknown = yield* Effect.promise(() =>
          fetch(`${redirectUrl}?code=x&state=forged.${Buffer.from("nope").toString("base64url")}`)
        )
        assert.strictEqual(unknown.status, 400)
        // the browser's redirect reaches C, which asked for nothing: C exchanges the code
        assert.strictEqual(yield* Effect.promise(() => followAuthorization(started)), 200)
        const [endA, endB] = yield* Effect.all([onA, onB], { concurrency: "unbounded" })
        assert.deepStrictEqual(endA, { server: "docs", success: true })
        assert.deepStrictEqual(endB, { server: "docs", success: true })
        assert.strictEqual(server.counts.codeExchanges, 1)
        yield* loggedInOnEach([a, b, c])
        // the same redirect again: the login it belonged to is over
        const replayed = yield* Effect.promise(() => followAuthorization(started))
        assert.strictEqual(replayed, 400)
        // nothing of the login is readable in the database: the row is sealed
        const rows = yield* psql(url, "SELECT string_agg(t::text, E'\\n') FROM oauth_tokens t")
        for (const secret of server.secrets()) assert.notInclude(rows, secret)
        assert.notInclude(rows, "code_verifier")
      }),
    90_000
  )
})

describe("a clustered app-server without PostgreSQL", () => {
  for (const driver of ["sqlite", "memory"] as const)
    it.scopedLive(`refuses to start on driver = "${driver}", naming the setting`, () =>
      Effect.gen(function* () {
        const refused = yield* start({
          args: ["--config", clusterConfig({ driver }, {}), "--data-dir", tempDir(), "--cluster"]
        })
        assert.strictEqual(yield* refused.exited("60 seconds"), 1)
        assert.include(
          refused.stderr(),
          `a clustered app-server (--cluster or [cluster] enabled = true) needs [persistence] driver = "postgres", the store its instances share; this config has driver = "${driver}"`
        )
        assert.deepStrictEqual(refused.lines, [])
      })
    )
})
