import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"

declare module "vitest" {
  /** Provided by tooling/config/pgGlobalSetup.ts. */
  interface ProvidedContext {
    pgCluster: { readonly url: string } | { readonly skipped: string }
  }
}

const withClient = <A>(url: string, use: (client: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    const client = yield* PgClient.make({ url: Redacted.make(url) })
    return yield* use(client)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

/** Runs one raw statement through a short-lived connection. */
export const pgQuery = (url: string, statement: string) =>
  withClient(url, (client) => client.unsafe<Record<string, unknown>>(statement))

/** A fresh database on the cluster, dropped (connections and all) when the scope closes; returns its url. */
export const freshDatabase = (clusterUrl: string) =>
  Effect.gen(function* () {
    const name = `thread_store_${Math.random().toString(36).slice(2, 12)}`
    yield* Effect.acquireRelease(pgQuery(clusterUrl, `CREATE DATABASE ${name}`), () =>
      pgQuery(clusterUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    )
    const url = new URL(clusterUrl)
    url.pathname = `/${name}`
    return url.toString()
  })
