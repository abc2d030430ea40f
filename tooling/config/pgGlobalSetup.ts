/**
 * vitest `globalSetup`: starts one throw-away PostgreSQL cluster for the whole run and stops it at the
 * end. Tests read it with `inject("pgCluster")`: `{ url }`, or `{ skipped }` with the reason to print.
 *
 * Use: in a package's vitest config `globalSetup: ["../../tooling/config/pgGlobalSetup.ts"]`, and in its
 * tests (this folder is outside the packages' tsconfig roots, so the type is declared there):
 *
 *     declare module "vitest" {
 *       interface ProvidedContext { pgCluster: { readonly url: string } | { readonly skipped: string } }
 *     }
 *
 * Each url reaches database `postgres` as superuser `postgres`; create a database per test for isolation.
 */
import { startPgCluster } from "./pgCluster.ts"

/** What vitest passes to a global setup (the part used here). */
interface SetupProject {
  readonly provide: (key: "pgCluster", value: { readonly url: string } | { readonly skipped: string }) => void
}

/** Starts the cluster, provides `pgCluster`, and returns the teardown that stops it. */
export default async function setup(project: SetupProject): Promise<() => Promise<void>> {
  const cluster = await startPgCluster()
  if ("skipped" in cluster) {
    project.provide("pgCluster", { skipped: cluster.skipped })
    return async () => {}
  }
  project.provide("pgCluster", { url: cluster.url })
  return () => cluster.stop()
}
