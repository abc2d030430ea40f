/** The throw-away PostgreSQL cluster of the tests' global setup: the fixtures' `PgCluster.ts` (the bench starts one too). */
export * from "../fixtures/src/PgCluster.ts"
