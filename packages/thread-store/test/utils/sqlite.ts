import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"

/** A temporary directory removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "thread-store-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Runs one raw statement on a SQLite file through its own short-lived connection. */
export const sqliteQuery = (filename: string, statement: string) =>
  Effect.gen(function* () {
    const client = yield* SqliteClient.make({ filename })
    return yield* client.unsafe<Record<string, unknown>>(statement)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)
