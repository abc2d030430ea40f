/**
 * Where a clustered app-server's Effect Cluster keeps its runners, shard locks and messages: the
 * `[persistence]` PostgreSQL database, in tables of its own (prefix {@link tablePrefix}), through a
 * pool of their own. Only a clustered start imports this module (`@mcp-resources/thread-store/ClusterStorage`;
 * the package's index leaves it out, so that nothing else loads `@effect/cluster`).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as MessageStorage from "@effect/cluster/MessageStorage"
import type * as RunnerStorage from "@effect/cluster/RunnerStorage"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, ExecutionStrategy, Exit, Layer, Redacted, Scope } from "effect"
import * as Errors from "./internal/error.js"
import type { ThreadStoreError } from "./internal/error.js"
import * as Persistence from "./internal/persistence.js"

/** The prefix of the cluster's tables (`mcp_resources_cluster_runners`, `…_shards`, `…_messages`, …). */
export const tablePrefix = "mcp_resources_cluster"

/** The advisory lock key the tables are created under (an arbitrary constant of ours). */
const creationLock = 7_401_402_501

const loadPg = Effect.tryPromise({
  try: () => import("./internal/pg.js"),
  catch: (cause) => Errors.storage("cannot load the PostgreSQL driver", Errors.describe(cause))
})

/**
 * The runner and message storages of the PostgreSQL store (`url`, else `DATABASE_URL`); the tables are
 * created at the first start. A failure names what failed, never the url.
 */
export const layer = (options: {
  readonly url?: string | undefined
}): Layer.Layer<
  MessageStorage.MessageStorage | RunnerStorage.RunnerStorage,
  ThreadStoreError,
  ShardingConfig.ShardingConfig
> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const context = "cannot open the cluster's tables"
      const given = yield* Persistence.pgUrl(options, context)
      const url = Redacted.isRedacted(given) ? given : Redacted.make(given)
      const driver = yield* loadPg
      const client = Layer.scoped(SqlClient.SqlClient, driver.connectPg(url, context)).pipe(
        Layer.provide(Reactivity.layer)
      )
      const storages = Layer.mergeAll(
        SqlMessageStorage.layerWith({ prefix: tablePrefix }),
        SqlRunnerStorage.layerWith({ prefix: tablePrefix }).pipe(
          Layer.catchAll((error) => Layer.fail(Errors.storage(context, Errors.describe(error))))
        )
      )
      // Instances starting together on a new database would race creating the tables (PostgreSQL's
      // `CREATE TABLE IF NOT EXISTS` is not safe against that): one creates them at a time, under a
      // session advisory lock held on a connection of its own while the storages are built.
      const created = Layer.scopedContext(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const reservation = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
          const connection = yield* Scope.extend(sql.reserve, reservation)
          yield* connection.execute("SELECT pg_advisory_lock($1)", [creationLock], undefined)
          return yield* Effect.ensuring(
            Layer.build(storages),
            Effect.zipRight(
              Effect.ignore(connection.execute("SELECT pg_advisory_unlock($1)", [creationLock], undefined)),
              Scope.close(reservation, Exit.void)
            )
          )
        })
      ).pipe(Layer.catchAll((error) => Layer.fail(Errors.storage(context, Errors.describe(error)))))
      return created.pipe(Layer.provide(client))
    })
  )
