/** Helpers for the app-server tests: temp dirs, config files, ports, reading the store directly. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Command } from "@mcp-resources/fixtures"
import { ThreadStore } from "@mcp-resources/thread-store"
import { Effect, type Layer, Logger, LogLevel } from "effect"

declare module "vitest" {
  /** Provided by tooling/config/pgGlobalSetup.ts. */
  interface ProvidedContext {
    pgCluster: { readonly url: string } | { readonly skipped: string }
  }
}

/** A fresh temp dir and its removal. */
export const tempDir = (prefix: string): { dir: string; remove: () => void } => {
  const dir = mkdtempSync(join(tmpdir(), `reliability-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

const tomlString = (s: string): string => JSON.stringify(s)

/** A TOML config: stdio servers by name, plus raw extra TOML. */
export const writeConfig = (
  dir: string,
  servers: Readonly<Record<string, Command & { readonly extra?: string }>>,
  extra = "",
  name = "config.toml"
): string => {
  const lines: Array<string> = []
  for (const [server, command] of Object.entries(servers)) {
    lines.push(`[mcp_servers.${server}]`, `command = ${tomlString(command.command)}`)
    lines.push(`args = [${command.args.map(tomlString).join(", ")}]`)
    if (command.extra !== undefined) lines.push(command.extra)
    lines.push("")
  }
  lines.push(extra)
  const file = join(dir, name)
  writeFileSync(file, lines.join("\n"))
  return file
}

/** A free loopback port (released before use; a race with another process is possible but unlikely). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Where a thread store lives. */
export type StoreTarget =
  | { readonly driver: "sqlite"; readonly filename: string }
  | { readonly driver: "postgres"; readonly url: string }

/**
 * Opens the store the way the app-server does (migrations included), reads every record of the given
 * threads (`since(id, 0)`), and closes it. Fails when the store does not open cleanly.
 */
export const readStore = (
  target: StoreTarget,
  threadIds: ReadonlyArray<string>
): Promise<Map<string, ReadonlyArray<ThreadStore.StoredRecord>>> => {
  const layer: Layer.Layer<ThreadStore.ThreadStore, unknown> =
    target.driver === "sqlite"
      ? ThreadStore.layerSqlite({ filename: target.filename })
      : ThreadStore.layerPg({ url: target.url })
  return Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* ThreadStore.ThreadStore
      const out = new Map<string, ReadonlyArray<ThreadStore.StoredRecord>>()
      for (const id of threadIds) out.set(id, yield* store.since(id, 0))
      return out
    }).pipe(Effect.provide(layer), Effect.provide(Logger.minimumLogLevel(LogLevel.None)), Effect.timeout("20 seconds"))
  )
}
