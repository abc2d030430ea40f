/**
 * PostgreSQL helpers for the app-server tests: the cluster of tooling/config/pgGlobalSetup.ts, a fresh
 * database per test, and a row lock held by a separate session (to make two appends race). The
 * app-server has no PostgreSQL client library of its own, so statements go through the cluster's `psql`.
 */
import { execFile, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { Data, Effect, type Scope } from "effect"

declare module "vitest" {
  /** Provided by tooling/config/pgGlobalSetup.ts. */
  interface ProvidedContext {
    pgCluster: { readonly url: string } | { readonly skipped: string }
  }
}

/** A psql command that failed or did not finish in time. */
export class PsqlError extends Data.TaggedError("PsqlError")<{ readonly message: string }> {}

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
  const found = candidates.map((dir) => join(dir, "psql")).find((file) => existsSync(file))
  return found ?? "psql"
}

const psqlArgs = (url: string) => ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url]

/** Runs one statement and returns psql's unaligned, tuples-only output (trimmed). Bounded to 30 s. */
export const psql = (url: string, statement: string): Effect.Effect<string, PsqlError> =>
  Effect.async<string, PsqlError>((resume) => {
    const child = execFile(
      psqlBinary(),
      [...psqlArgs(url), "-c", statement],
      { timeout: 30_000, encoding: "utf8" },
      (error, stdout, stderr) =>
        resume(
          error
            ? Effect.fail(new PsqlError({ message: `psql ${statement}: ${error.message} ${stderr}` }))
            : Effect.succeed(stdout.trim())
        )
    )
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

/** A fresh database on the cluster, dropped (connections and all) when the scope closes; returns its url. */
export const freshDatabase = (clusterUrl: string): Effect.Effect<string, PsqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const name = `app_server_${Math.random().toString(36).slice(2, 12)}`
    yield* Effect.acquireRelease(psql(clusterUrl, `CREATE DATABASE ${name}`), () =>
      Effect.orDie(psql(clusterUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    const url = new URL(clusterUrl)
    url.pathname = `/${name}`
    return url.toString()
  })

/**
 * Polls `query` (a count) every 50 ms until it reaches `count`; fails after `attempts` tries. Polled:
 * rows another process writes to PostgreSQL announce nothing the test could await without a trigger.
 */
export const awaitCount = (url: string, query: string, count: number, attempts = 200): Effect.Effect<void, PsqlError> =>
  Effect.gen(function* () {
    for (let i = 0; i < attempts; i++) {
      if (Number(yield* psql(url, query)) >= count) return
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.fail(new PsqlError({ message: `timed out waiting for ${count} from: ${query}` }))
  })

/**
 * Locks the row of `threads` with that id from a separate session (`SELECT ... FOR UPDATE` in an open
 * transaction) and returns the effect that commits, releasing it. The session is killed when the scope
 * closes if it is still running.
 */
export const holdThreadRowLock = (
  url: string,
  threadId: string
): Effect.Effect<Effect.Effect<void>, PsqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(psqlBinary(), psqlArgs(url), { stdio: ["pipe", "ignore", "ignore"] })),
      (child) =>
        Effect.sync(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
        })
    )
    child.stdin.on("error", () => {})
    child.stdin.write(`BEGIN;\nSELECT id FROM threads WHERE id = '${threadId}' FOR UPDATE;\n`)
    yield* awaitCount(
      url,
      "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE '%FOR UPDATE%'",
      1
    )
    return Effect.async<void>((resume) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      child.once("exit", () => {
        clearTimeout(timer)
        resume(Effect.void)
      })
      child.stdin.end("COMMIT;\n")
    })
  })
