/**
 * `mcp-resources widgets --config F [--data-dir D]`: the MCP Apps widget host (docs/widgets.md). Serves
 * the host page and the sandbox proxy (`@mcp-resources/widget-host`, two loopback ports) and runs the
 * app-server as a child on a loopback WebSocket with a fresh token, allowing only the page's origin.
 * Prints the app-server URL and the page URL (the token in its fragment) on standard output, then runs
 * until SIGINT or SIGTERM (or the app-server's exit) and stops both.
 *
 * Dependency direction: the app-server depends on the widget host (which knows nothing of it).
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Config as ProtocolConfig } from "@mcp-resources/protocol"

/** The variable that hands the token to the app-server child. */
export const tokenEnv = "MCP_RESOURCES_WIDGETS_TOKEN"

/** The default data directory (persistent threads, so that a restart shows the same widgets). */
export const defaultDataDir = ".mcp-resources-widgets"

/** Options of {@link run}. */
export interface Options {
  readonly configPath: string
  /** The loaded config (its `[widgets]` ports). */
  readonly config: ProtocolConfig.Config
  readonly dataDir?: string
}

const listening = /listening on (ws:\/\/[0-9.]+:\d+)/

/** Runs the widget host until a signal; the exit code. */
export const run = async (options: Options): Promise<number> => {
  const widgets = options.config.widgets ?? ProtocolConfig.widgetsDefaults
  // the package is loaded from its own files (its page bundles sit beside it), never bundled into ours
  const widgetHostModule = "@mcp-resources/widget-host"
  const { WidgetHost } = (await import(widgetHostModule)) as typeof import("@mcp-resources/widget-host")
  const token = randomBytes(32).toString("base64url")
  let appServerUrl: string | undefined
  const host = await WidgetHost.serve({
    appServerUrl: () => appServerUrl,
    pagePort: widgets.pagePort,
    sandboxPort: widgets.sandboxPort
  })
  const mainJs = fileURLToPath(new URL("./main.js", import.meta.url).href.replace(/\/cli\/main\.js$/, "/main.js"))
  const child = spawn(
    process.execPath,
    [
      mainJs,
      "--config",
      NodePath.resolve(options.configPath),
      "--data-dir",
      NodePath.resolve(options.dataDir ?? defaultDataDir),
      "--listen",
      "ws://127.0.0.1:0",
      "--no-stdio",
      "--token-env",
      tokenEnv,
      "--allow-origin",
      host.pageOrigin
    ],
    { env: { ...process.env, [tokenEnv]: token }, stdio: ["ignore", "ignore", "pipe"] }
  )
  const exited = new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? 1)))
  const ready = new Promise<string | undefined>((resolve) => {
    let seen = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk)
      if (appServerUrl !== undefined) return
      seen = (seen + chunk.toString("utf8")).slice(-4096)
      const match = listening.exec(seen)
      if (match !== null) resolve(match[1])
    })
    void exited.then(() => resolve(undefined))
  })
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM")
  }
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  try {
    appServerUrl = await ready
    if (appServerUrl === undefined) {
      process.stderr.write("mcp-resources: the app-server did not start (see its log above)\n")
      return 1
    }
    process.stdout.write(`app-server: ${appServerUrl}\nwidgets: ${host.pageUrl(token)}\n`)
    const code = await exited
    return code
  } finally {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
    stop()
    await exited
    await host.close()
  }
}
