/**
 * The app-server's own secrets (`HostSecrets.ts`): `MCP_RESOURCES_TOKEN_KEY` and
 * `MCP_RESOURCES_CLUSTER_SECRET` are taken out of the environment at start, so that an MCP server it
 * spawns (the real `@modelcontextprotocol/server-everything`, whose `get-env` prints its environment)
 * inherits neither name nor value, while the app-server's own `Config` reads still see them.
 */
import { assert, describe, it } from "@effect/vitest"
import { everythingCommand } from "@mcp-resources/fixtures"
import { TokenVault } from "@mcp-resources/thread-store"
import { Config, Effect } from "effect"
import * as Cluster from "../src/Cluster.js"
import * as HostSecrets from "../src/HostSecrets.js"
import { resultOf, startInitialized, tempDir, threadWithTurn, writeConfig } from "./utils/AppServerProcess.js"

const key = Buffer.alloc(32, 7).toString("base64")
const clusterSecret = "cluster-secret-value-4f1c"

describe("the app-server's own secrets", () => {
  it("are the token key of the store and the cluster's secret", () => {
    assert.deepStrictEqual([...HostSecrets.variables], [TokenVault.keyVariable, Cluster.secretVariable])
  })

  it.effect("are taken out of the environment and still read through Config", () =>
    Effect.gen(function* () {
      const env: NodeJS.ProcessEnv = { MCP_RESOURCES_CLUSTER_SECRET: clusterSecret, OTHER: "kept" }
      const read = yield* HostSecrets.withheld(Config.string("MCP_RESOURCES_CLUSTER_SECRET"), env)
      assert.strictEqual(read, clusterSecret)
      assert.deepStrictEqual(env, { OTHER: "kept" })
    })
  )

  it.scopedLive(
    "no MCP server the app-server spawns inherits them",
    () =>
      Effect.gen(function* () {
        const config = writeConfig(tempDir(), {
          mcp_servers: { everything: { ...everythingCommand(), startup_timeout_sec: 60 } }
        })
        const app = yield* startInitialized({
          config,
          env: { MCP_RESOURCES_TOKEN_KEY: key, MCP_RESOURCES_CLUSTER_SECRET: clusterSecret }
        })
        const { threadId, turnId } = yield* threadWithTurn(app)
        const result = resultOf(
          yield* app.request("tool/call", {
            threadId,
            turnId,
            callId: "env",
            name: "mcp__everything__get-env",
            arguments: "{}"
          })
        ) as { success: boolean; output: string }
        assert.isTrue(result.success, result.output)
        assert.include(result.output, "PATH")
        for (const secret of [...HostSecrets.variables, key, clusterSecret]) assert.notInclude(result.output, secret)
      }),
    120_000
  )
})
