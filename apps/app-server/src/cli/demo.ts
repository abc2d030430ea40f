/**
 * The main job: a scripted app-server session on the embedded default (SQLite, the bundled example
 * servers), printed as a readable transcript. It starts `dist/main.js` as a child over stdio with an
 * example config (our example server as the apps server `codex_apps`, and the published
 * `@modelcontextprotocol/server-everything`), then: initialize with its capabilities, tool/list, an
 * aggregate list, a read, an app tool call and its widget read, the extended profile (windows, images,
 * templates with their variables, a completion and a read through a template, a read document that
 * changes on a 2026-07-28 server: `mcp/resource/changed` and the next turn's `resourceChanges`), the widget methods,
 * a read refused by host policy, compaction, a restart and resume, and the widget read again.
 * It drives the server with the typed client (`@mcp-resources/app-server-client`). At the end the
 * `mcp-resources` CLI runs the same model tools from the command line on the same config: a read at the
 * offset a window's note gives, a read through a template, a completion, a tool call.
 */
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { type AppServerClient, Errors, PromiseClient } from "@mcp-resources/app-server-client"

const here = NodePath.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

/**
 * The example config: our example server as `codex_apps`, server-everything as `everything`, and a
 * server of changing documents on the 2026-07-28 revision as `docs`.
 */
export const exampleConfig = (): string => {
  const fixturesDist = NodePath.dirname(require.resolve("@mcp-resources/fixtures"))
  const everything = NodePath.join(
    NodePath.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
    "dist",
    "index.js"
  )
  const q = (s: string) => JSON.stringify(s)
  return [
    "# Example config of the mcp-resources demo.",
    "[mcp_servers.codex_apps]",
    `command = ${q(process.execPath)}`,
    `args = [${q(NodePath.join(fixturesDist, "example.js"))}]`,
    "",
    "[mcp_servers.everything]",
    `command = ${q(process.execPath)}`,
    `args = [${q(everything)}, "stdio"]`,
    "startup_timeout_sec = 30",
    "",
    "[mcp_servers.docs]",
    `command = ${q(process.execPath)}`,
    `args = [${q(NodePath.join(fixturesDist, "changesStdio.js"))}, "--modern"]`,
    // half of it is how long the `auto` handshake waits for the era probe's answer before it takes the
    // server for an older one: a modern-only server slow to start on a loaded machine needs the room
    "startup_timeout_sec = 30",
    "",
    "[truncation]",
    'mode = "bytes"',
    "limit = 2000",
    ""
  ].join("\n")
}

const widgetUri = "ui://widget/example-app.html"
const out = (line = "") => process.stdout.write(`${line}\n`)
const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text)
const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n")

/** A running app-server child, the notifications it sent since the last look, and its stop. */
interface Session {
  readonly client: PromiseClient.PromiseClient
  /** Notifications received since the last call (and clears them). */
  readonly takeNotifications: () => Array<AppServerClient.Notification>
  /** Ends standard input and waits for the process to exit; its exit code. */
  readonly close: () => Promise<number | null>
}

/** Starts `node main.js ...args`, stderr appended to `logFile`. */
const startServer = async (mainJs: string, args: ReadonlyArray<string>, logFile: string): Promise<Session> => {
  const log = NodeFs.openSync(logFile, "a")
  const client = await PromiseClient.connectStdio(
    { command: process.execPath, args: [mainJs, ...args], stderr: (text) => NodeFs.writeSync(log, text) },
    { requestTimeoutMs: 30_000 }
  ).catch((e: unknown) => {
    NodeFs.closeSync(log)
    throw e
  })
  let notifications: Array<AppServerClient.Notification> = []
  client.onNotification((n) => notifications.push(n))
  let closed: Promise<number | null> | undefined
  return {
    client,
    takeNotifications: () => {
      const taken = notifications
      notifications = []
      return taken
    },
    close: () => {
      closed ??= client
        .close()
        .then(() => client.exited)
        .then((exit) => exit?.code ?? null)
        .finally(() => NodeFs.closeSync(log))
      return closed
    }
  }
}

/** The params of the next notification `method` the session receives; fails after `timeoutMs`. */
const waitForNotification = (session: Session, method: string, timeoutMs: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`no ${method} within ${timeoutMs} ms`))
    }, timeoutMs)
    const stop = session.client.onNotification((n) => {
      if (n.method !== method) return
      clearTimeout(timer)
      stop()
      resolve(n.params)
    })
  })

/** Numbers the steps of one run of the demo, from 1. */
class Steps {
  private count = 0
  /** Prints the next step's heading. */
  next(title: string): void {
    this.count += 1
    out(`[${this.count}] ${title}`)
  }
}

const show = async <M extends AppServerClient.Method>(
  steps: Steps,
  session: Session,
  title: string,
  method: M,
  params: AppServerClient.Params<M>,
  render: (r: AppServerClient.Result<M>) => string
): Promise<AppServerClient.Result<M>> => {
  steps.next(title)
  out(`    → ${method} ${clip(JSON.stringify(params), 200)}`)
  try {
    const result = await session.client.request(method, params)
    for (const n of session.takeNotifications()) {
      const item = "item" in n.params ? n.params.item : undefined
      const detail = item
        ? ` ${item.tool} ${item.status}${item.mcpAppResourceUri ? ` (widget ${item.mcpAppResourceUri})` : ""}`
        : ""
      out(`    ⇠ ${n.method}${detail}`)
    }
    out(indent(`← ${render(result)}`))
    out()
    return result
  } catch (e) {
    const message = e instanceof Errors.ResponseError ? `error ${e.code}: ${e.message}` : String(e)
    out(indent(`← ${message}`))
    out()
    throw e
  }
}

/** What one CLI run printed. */
interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node Cli.js ...args` (at most 60 s); never rejects. */
const runCli = (args: ReadonlyArray<string>): Promise<CliRun> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [NodePath.join(here, "..", "Cli.js"), ...args],
      { timeout: 60_000, encoding: "utf8", env: { ...process.env, MCP_RESOURCES_LOG: "warn" } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

/**
 * The CLI on the demo's config: each command starts only the server it names and prints what the
 * model would see.
 */
const cliSection = async (steps: Steps, configPath: string, dataDir: string, everything: boolean): Promise<void> => {
  const template = "demo://resource/dynamic/text/{resourceId}"
  const commands: Array<{ readonly title: string; readonly args: ReadonlyArray<string> }> = [
    {
      title: "The CLI reads on where the window's note says (extended profile: read --offset)",
      args: ["read", "codex_apps", "example://docs/readme.md", "--offset", "40"]
    },
    ...(everything
      ? [
          {
            title: "The CLI reads through a resource template",
            args: ["read", "everything", "--template", template, "--arg", "resourceId=1"]
          },
          {
            title: "The CLI asks for values of a template variable",
            args: ["complete", "everything", "--template", template, "--var", "resourceId", "--value", "1"]
          },
          {
            title: "The CLI calls an MCP tool (--arg values that parse as JSON are JSON)",
            args: ["call", "everything", "get-sum", "--arg", "a=2", "--arg", "b=3"]
          }
        ]
      : [])
  ]
  for (const command of commands) {
    const run = await runCli([...command.args, "--config", configPath, "--data-dir", dataDir])
    steps.next(`${command.title}`)
    out(`    $ mcp-resources ${command.args.map((a) => (/^[\w:/.=-]+$/.test(a) ? a : `'${a}'`)).join(" ")}`)
    out(indent(clip(run.stdout.trimEnd(), 700)))
    if (run.code !== 0) {
      out(indent(`(exit ${run.code}) ${clip(run.stderr.trimEnd(), 300)}`))
      throw new Error(`mcp-resources ${command.args.join(" ")} exited ${run.code}`)
    }
    out()
  }
}

const main = async (): Promise<number> => {
  const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "mcp-resources-demo-"))
  const configPath = NodePath.join(root, "mcp-resources.toml")
  const dataDir = NodePath.join(root, "data")
  const logFile = NodePath.join(root, "app-server.log")
  NodeFs.writeFileSync(configPath, exampleConfig())
  const mainJs = NodePath.join(here, "..", "main.js")
  const args = ["--config", configPath, "--data-dir", dataDir]

  out("mcp-resources demo: a scripted app-server session (JSON-RPC over stdio)")
  out(`  config   ${configPath}`)
  out(`  data dir ${dataDir} (SQLite, state.sqlite)`)
  out(`  log      ${logFile} (removed at the end unless MCP_RESOURCES_DEMO_KEEP is set)`)
  out("  servers  codex_apps = the bundled example server (resources, templates, an app tool with a widget)")
  out("           everything = @modelcontextprotocol/server-everything")
  out("           docs       = a bundled server of changing documents (2026-07-28, subscriptions)")
  out()

  const steps = new Steps()
  let client: Session | undefined
  let ok = false
  try {
    client = await startServer(mainJs, args, logFile)
    await show(
      steps,
      client,
      "Initialize the connection",
      "initialize",
      { clientInfo: { name: "demo", version: "1" }, capabilities: {} },
      (r) =>
        [
          `${r.serverInfo.name} ${r.serverInfo.version}, protocol ${r.protocolVersion}`,
          `capabilities: ${Object.entries(r.capabilities ?? {})
            .map(([name, value]) => (value === true ? name : `${name} ${JSON.stringify(value)}`))
            .join(", ")}`
        ].join("\n")
    )
    const started = await show(
      steps,
      client,
      "Start a persistent thread",
      "thread/start",
      {},
      (r) => `thread ${r.thread.id} (${r.thread.ephemeral ? "ephemeral" : "persistent"})`
    )
    const threadId = started.thread.id
    const turn = await show(steps, client, "Start a turn", "turn/start", { threadId }, (r) => `turn ${r.turn.id}`)
    const turnId = turn.turn.id

    await show(
      steps,
      client,
      "List the tools the model sees",
      "tool/list",
      { threadId },
      (r) => `${r.tools.length} tools:\n${r.tools.map((t) => `  ${t.name}`).join("\n")}`
    )

    let callNo = 0
    const session = client
    const call = (title: string, name: string, argumentsText: string) =>
      show(
        steps,
        session,
        title,
        "tool/call",
        { threadId, turnId, callId: `call-${++callNo}`, name, arguments: argumentsText },
        (r) => `success ${r.success}\n${clip(r.output, 700)}`
      )

    const listed = await call("The model lists resources of every server", "list_mcp_resources", "{}")
    const resources = (JSON.parse(listed.output) as { resources: Array<{ server: string; uri: string }> }).resources
    const counts = new Map<string, number>()
    for (const r of resources) counts.set(r.server, (counts.get(r.server) ?? 0) + 1)
    out(`      (per server: ${[...counts].map(([s, n]) => `${s} ${n}`).join(", ")})`)
    out()

    await call(
      "The model reads one resource",
      "read_mcp_resource",
      JSON.stringify({ server: "codex_apps", uri: "example://docs/readme.md" })
    )
    const everythingUri = resources.find((r) => r.server === "everything")?.uri
    if (everythingUri) {
      await call(
        "The model reads a resource of server-everything",
        "read_mcp_resource",
        JSON.stringify({ server: "everything", uri: everythingUri })
      )
    }
    await call(
      "The model lists resource templates of the example server",
      "list_mcp_resource_templates",
      JSON.stringify({ server: "codex_apps" })
    )
    const appCallId = "app-call"
    steps.next(`The model calls the app tool; its item names the widget resource`)
    const appResult = await client.client.request("tool/call", {
      threadId,
      turnId,
      callId: appCallId,
      name: "mcp__codex_apps__example_search",
      arguments: JSON.stringify({ query: "lamps" })
    })
    for (const n of client.takeNotifications()) {
      const item = "item" in n.params ? n.params.item : undefined
      out(
        `    ⇠ ${n.method} ${item?.tool} ${item?.status}${item?.connectorId ? ` connector ${item.connectorId}` : ""}${item?.mcpAppResourceUri ? ` widget ${item.mcpAppResourceUri}` : ""}`
      )
    }
    out(indent(`← success ${appResult.success}\n${clip(appResult.output, 300)}`))
    out()

    const widgetRead = { threadId, originCallId: appCallId, server: "codex_apps", uri: widgetUri }
    const renderContents = (r: AppServerClient.Result<"mcp/resource/read">) =>
      `${r.contents.map((c) => `${c.uri}: ${"text" in c ? c.text : "(blob)"}`).join("\n")}\n(originCallId ${r.originCallId})`
    await show(
      steps,
      client,
      "The widget host reads the widget through the call that produced it",
      "mcp/resource/read",
      widgetRead,
      renderContents
    )
    try {
      await show(
        steps,
        client,
        "A read naming a call that never happened is refused",
        "mcp/resource/read",
        { ...widgetRead, originCallId: "no-such-call" },
        renderContents
      )
    } catch {
      // expected: the transcript shows the refusal
    }
    // The extended tool profile, chosen per thread: windows over large text, images as image parts.
    const extended = await show(
      steps,
      client,
      "Start a thread on the extended tool profile",
      "thread/start",
      { config: { toolProfile: "extended" } },
      (r) => `thread ${r.thread.id}`
    )
    const extendedThread = extended.thread.id
    const extendedTurn = await show(
      steps,
      client,
      "Start a turn on it",
      "turn/start",
      { threadId: extendedThread },
      (r) => `turn ${r.turn.id}`
    )
    const extendedCall = (title: string, name: string, args: unknown) =>
      show(
        steps,
        session,
        title,
        "tool/call",
        {
          threadId: extendedThread,
          turnId: extendedTurn.turn.id,
          callId: `call-${++callNo}`,
          name,
          arguments: JSON.stringify(args)
        },
        (r) =>
          [
            `success ${r.success}`,
            clip(r.output, 700),
            ...(r.contentItems ?? []).flatMap((c) =>
              c.type === "image" ? [`(content item: image ${c.mimeType}, ${c.data.length} base64 characters)`] : []
            )
          ].join("\n")
      )
    await extendedCall("The model reads a resource in windows: the first 40 bytes", "read_mcp_resource", {
      server: "codex_apps",
      uri: "example://docs/readme.md",
      length: 40
    })
    // Search across every server's resources (built at the first search, kept for the next ones).
    await extendedCall("The model searches every server's resources by their words", "search_mcp_resources", {
      query: "readme docs",
      limit: 3
    })
    if (resources.some((r) => r.server === "everything")) {
      await extendedCall(
        "An MCP tool's image reaches the model as an image, not as base64 text",
        "mcp__everything__get-tiny-image",
        {}
      )
    }

    if (resources.some((r) => r.server === "everything")) {
      // Templates the model can use (extended profile): the variables, a completion, a read through one.
      const template = "demo://resource/dynamic/text/{resourceId}"
      await extendedCall("The model lists templates with their variables", "list_mcp_resource_templates", {
        server: "everything"
      })
      await extendedCall(
        "The model asks the server for values of a template variable",
        "complete_mcp_resource_argument",
        {
          server: "everything",
          uriTemplate: template,
          argument: "resourceId",
          value: "1"
        }
      )
      await extendedCall("The model reads through the template (expanded per RFC 6570)", "read_mcp_resource", {
        server: "everything",
        uriTemplate: template,
        arguments: { resourceId: "1" }
      })
    }

    // Resources that tell the model they changed: the read subscribed the thread; the server edits the
    // document (200 lines, one of which changes); the host is told at once, the next turn/start hands the
    // change over, and the model reads only what changed (since: "last").
    await extendedCall("The model reads a document (the thread is now subscribed to it)", "read_mcp_resource", {
      server: "docs",
      uri: "changes://doc/long-plan"
    })
    const changed = waitForNotification(session, "mcp/resource/changed", 20_000)
    await extendedCall("The document changes on the server (its touch tool)", "mcp__docs__touch", {
      uri: "changes://doc/long-plan"
    })
    const change = await changed
    out(`      ⇠ mcp/resource/changed ${JSON.stringify(change)}`)
    out()
    await show(
      steps,
      client,
      "The next turn on the extended thread says which resources it read have changed",
      "turn/start",
      { threadId: extendedThread },
      (r) =>
        [
          `turn ${r.turn.id}`,
          ...(r.resourceChanges ?? []).map(
            (c) =>
              `The resource ${c.uri} of MCP server ${c.server}, read in call ${c.readInCallId}, changed at ${c.changedAt}`
          )
        ].join("\n")
    )
    await show(
      steps,
      client,
      'The model reads it again with since: "last": a unified diff of what changed, not the whole document',
      "tool/call",
      {
        threadId: extendedThread,
        turnId: extendedTurn.turn.id,
        callId: `call-${++callNo}`,
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "docs", uri: "changes://doc/long-plan", since: "last" })
      },
      (r) => [`success ${r.success}`, clip(r.output, 2000)].join("\n")
    )

    // The tools a widget page offers a user: those that name a ui:// widget, callable through tool/call.
    await show(
      steps,
      client,
      "A widget host lists the tools that open a widget (its page offers each as a form)",
      "mcp/widget/tools",
      { threadId },
      (r) => r.tools.map((t) => `${t.server} · ${t.tool} → ${t.resourceUri} (tool/call name ${t.callName})`).join("\n")
    )

    // The MCP Apps widget of the app call, with its UI metadata, through the widget method.
    await show(
      steps,
      client,
      "A widget host reads the app call's widget with its UI metadata",
      "mcp/widget/read",
      { threadId, callId: appCallId },
      (r) => `${r.uri} (${r.mimeType}, ${r.html.length} characters of HTML), ui ${JSON.stringify(r.ui)}`
    )

    // Host policy: a thread whose config denies a URI pattern; the read is refused before any request.
    const policed = await show(
      steps,
      client,
      "Start a thread whose config denies example://docs/**",
      "thread/start",
      { ephemeral: true, config: { resources: { deny: ["example://docs/**"] } } },
      (r) => `thread ${r.thread.id}`
    )
    const policedTurn = await show(
      steps,
      client,
      "Start a turn on it",
      "turn/start",
      { threadId: policed.thread.id },
      (r) => `turn ${r.turn.id}`
    )
    await show(
      steps,
      client,
      "The model's read of a denied URI is refused by host policy",
      "tool/call",
      {
        threadId: policed.thread.id,
        turnId: policedTurn.turn.id,
        callId: `call-${++callNo}`,
        name: "read_mcp_resource",
        arguments: JSON.stringify({ server: "codex_apps", uri: "example://docs/readme.md" })
      },
      (r) => `success ${r.success}\n${r.output}`
    )

    await show(
      steps,
      client,
      "Compact the thread (writes the origin checkpoint)",
      "thread/compact",
      { threadId },
      () => "compacted"
    )

    steps.next(`Restart the app-server on the same data dir`)
    const code = await client.close()
    out(`      ← exited with code ${code}; starting again`)
    out()
    client = await startServer(mainJs, args, logFile)
    await show(
      steps,
      client,
      "Initialize the new connection",
      "initialize",
      { clientInfo: { name: "demo", version: "1" } },
      () => "ok"
    )
    await show(
      steps,
      client,
      "Resume the thread from SQLite",
      "thread/resume",
      { threadId },
      (r) => `thread ${r.thread.id} resumed`
    )
    await show(
      steps,
      client,
      "The widget is still readable after the restart",
      "mcp/resource/read",
      widgetRead,
      renderContents
    )
    await show(steps, client, "Threads in the store", "thread/list", {}, (r) =>
      r.threads.map((t) => `${t.id} ${t.ephemeral ? "ephemeral" : "persistent"} ${t.createdAt}`).join("\n")
    )
    await cliSection(
      steps,
      configPath,
      dataDir,
      resources.some((r) => r.server === "everything")
    )
    out(
      "Demo finished: the steps above went through the JSON-RPC app-server, the last ones through the mcp-resources CLI."
    )
    ok = true
    return 0
  } catch (e) {
    process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)} (server log: ${logFile})\n`)
    return 1
  } finally {
    await client?.close()
    // keep the config, data and log for inspection when something failed (or when asked to)
    if (ok && process.env.MCP_RESOURCES_DEMO_KEEP === undefined) NodeFs.rmSync(root, { recursive: true, force: true })
    else process.stderr.write(`demo files kept in ${root}\n`)
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`demo failed: ${String(e)}\n`)
    process.exit(1)
  }
)
