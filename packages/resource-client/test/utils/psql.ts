/**
 * PostgreSQL helpers for the token store's PostgreSQL tests: the cluster of
 * tooling/config/pgGlobalSetup.ts, a fresh database per test, and raw statements through the
 * cluster's `psql` (this package has no PostgreSQL client library of its own; the same helper as the
 * app-server's test/utils/pg.ts, which the test configs cannot share).
 */
import { execFile } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { Effect, type Scope } from "effect"

declare module "vitest" {
  /** Provided by tooling/config/pgGlobalSetup.ts. */
  interface ProvidedContext {
    pgCluster: { readonly url: string } | { readonly skipped: string }
  }
}

/** `psql` next to the server binaries the cluster helper uses (PG_BIN_DIR, the newest /usr/lib/postgresql/N/bin, PATH). */
const psqlBinary = (): string => {
  const candidates: Array<string> = []
  if (process.env.PG_BIN_DIR) candidates.push(process.env.PG_BIN_DIR)
  const root = "/usr/lib/postgresql"
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => /^\d+$/.test(v))
    for (const v of versions.sort((a, b) => Number(b) - Number(a))) candidates.push(join(root, v, "bin"))
  }
  candidates.push(...(process.env.PATH ?? "").split(":").filter((d) => d !== ""))
  return candidates.map((dir) => join(dir, "psql")).find((file) => existsSync(file)) ?? "psql"
}

/** Runs one statement and returns psql's unaligned, tuples-only output (trimmed); dies on failure. Bounded to 30 s. */
export const psql = (url: string, statement: string): Effect.Effect<string> =>
  Effect.async<string, Error>((resume) => {
    const child = execFile(
      psqlBinary(),
      ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement],
      { timeout: 30_000, encoding: "utf8" },
      (error, stdout, stderr) =>
        resume(
          error
            ? Effect.fail(new Error(`psql ${statement}: ${error.message} ${stderr}`))
            : Effect.succeed(stdout.trim())
        )
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  }).pipe(Effect.orDie)

/** A fresh database on the cluster, dropped (connections and all) when the scope closes; returns its url. */
export const freshDatabase = (clusterUrl: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function* () {
    const name = `token_store_${Math.random().toString(36).slice(2, 12)}`
    yield* Effect.acquireRelease(psql(clusterUrl, `CREATE DATABASE ${name}`), () =>
      psql(clusterUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    )
    const url = new URL(clusterUrl)
    url.pathname = `/${name}`
    return url.toString()
  })
