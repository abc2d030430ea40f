/**
 * The SQLite driver of the thread store (better-sqlite3), in its own module so that `ThreadStore`
 * loads it with `import()` only when a SQLite store is built.
 *
 * better-sqlite3 runs every statement on the event loop, so SQLite never waits for another process's
 * lock itself (`busy_timeout = 0`): a statement that finds the database busy fails at once and the
 * store retries the whole operation on a schedule (sql.ts), leaving the event loop free meanwhile.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Reactivity } from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, type Scope } from "effect"
import type { Service } from "./service.js"
import { describe, storage, type ThreadStoreError } from "./error.js"
import { failed, make } from "./sql.js"

/** `{dataDir}/state.sqlite`, creating the directory when missing. */
export const sqliteFile = (dataDir: string): Effect.Effect<string, ThreadStoreError> =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true })
      return join(dataDir, "state.sqlite")
    },
    catch: (cause) => storage(`cannot create the data directory ${dataDir}`, describe(cause))
  })

const errno = (cause: unknown): unknown => (cause as { readonly code?: unknown } | null)?.code

/** The pid a lock file names, undefined when unreadable (gone, empty, not a number). */
const lockHolder = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** The process exists (EPERM: it does, under another user). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return errno(cause) === "EPERM"
  }
}

/** Creates `file` holding our pid, atomically (a hard link fails when the name exists). */
const tryCreateLock = (file: string): boolean => {
  const temp = `${file}.${process.pid}.tmp`
  const fd = openSync(temp, "w", 0o600)
  try {
    writeSync(fd, `${process.pid}\n`)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(temp, file)
    return true
  } catch (cause) {
    if (errno(cause) === "EEXIST") return false
    throw cause
  } finally {
    unlinkSync(temp)
  }
}

/**
 * Holds `{filename}.lock` until the scope closes: one process per SQLite database. A lock whose process
 * is gone (a crash, SIGKILL) or is this process's own pid (a restarted container) is stale and taken
 * over; a live one refuses, naming the data directory and the holder's pid.
 */
export const lockDatabase = (filename: string): Effect.Effect<void, ThreadStoreError, Scope.Scope> => {
  const file = `${filename}.lock`
  const context = `cannot open the SQLite thread store ${filename}`
  const take = Effect.try({
    try: (): number | undefined => {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (tryCreateLock(file)) return undefined
        const holder = lockHolder(file)
        if (holder !== undefined && holder !== process.pid && alive(holder)) return holder
        try {
          unlinkSync(file)
        } catch (cause) {
          if (errno(cause) !== "ENOENT") throw cause
        }
      }
      return lockHolder(file) ?? -1
    },
    catch: (cause) => storage(context, `cannot create the lock file ${file}: ${describe(cause)}`)
  })
  const release = Effect.sync(() => {
    try {
      if (lockHolder(file) === process.pid) unlinkSync(file)
    } catch {
      // already gone: nothing to release
    }
  })
  return Effect.acquireRelease(
    Effect.flatMap(take, (holder) =>
      holder === undefined
        ? Effect.void
        : Effect.fail(
            storage(
              context,
              `the data directory ${dirname(filename)} is in use by another app-server (pid ${holder}); stop it, or give this one another --data-dir`
            )
          )
    ),
    () => release
  ).pipe(Effect.asVoid)
}

/**
 * Opens the SQLite file (WAL, `synchronous = FULL`, no busy wait) and builds the store over it. With
 * `exclusive`, the database's lock file is held first (see {@link lockDatabase}).
 */
export const makeSqlite = (
  filename: string,
  options: { readonly exclusive?: boolean } = {}
): Effect.Effect<Service, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    if (options.exclusive === true) yield* lockDatabase(filename)
    const client = yield* openSqlite(filename, `cannot open the SQLite thread store ${filename}`)
    const store = yield* Effect.provideService(make, SqlClient.SqlClient, client)
    return { ...store, shared: options.exclusive !== true }
  })

/**
 * One connection to the SQLite file (WAL, `synchronous = FULL`, no busy wait), closed with the scope;
 * a failure is a storage error with `context`. The thread store and the body store each open one.
 */
export const openSqlite = (
  filename: string,
  context: string
): Effect.Effect<SqliteClient.SqliteClient, ThreadStoreError, Scope.Scope | Reactivity> =>
  Effect.gen(function* () {
    // better-sqlite3 throws from its constructor (missing directory, not a database): a typed failure here.
    const client = yield* SqliteClient.make({ filename }).pipe(
      Effect.catchAllDefect((defect) => Effect.fail(storage(context, describe(defect))))
    )
    yield* Effect.all([
      client.unsafe("PRAGMA busy_timeout = 0"),
      // WAL with FULL syncs on every commit: an acknowledged write survives a crash or power loss.
      client.unsafe("PRAGMA synchronous = FULL")
    ]).pipe(Effect.mapError(failed(context)))
    return client
  })
