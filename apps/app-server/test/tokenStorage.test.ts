/**
 * Where the app-server keeps OAuth tokens (`TokenStorage.ts`): the data dir's file unless the driver
 * is postgres and MCP_RESOURCES_TOKEN_KEY is set; a clustered app-server without the key refuses to
 * start; an invalid key is refused naming the variable, never quoting it.
 */
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { TokenStore } from "@mcp-resources/resource-client"
import { ConfigProvider, Context, Effect, Layer, Option } from "effect"
import * as TokenStorage from "../src/TokenStorage.js"

const env = (entries: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromJson(entries))
const docs = { server: "docs", url: "https://docs.example.com/mcp" }
const entry = { tokens: { access_token: "at", token_type: "Bearer" } }

const storeOf = (options: TokenStorage.Options) =>
  Effect.map(Layer.build(TokenStorage.layer(options)), Context.get(TokenStore.TokenStore))

describe("TokenStorage", () => {
  it.scoped("sqlite, memory, and postgres without the key (unclustered): the data dir's file", () =>
    Effect.gen(function* () {
      for (const driver of ["sqlite", "memory", "postgres"] as const) {
        const dataDir = mkdtempSync(join(tmpdir(), "token-storage-"))
        const store = yield* storeOf({ driver, url: "postgres://127.0.0.1:1/none", dataDir }).pipe(env({}))
        yield* store.set(docs, entry)
        assert.isTrue(existsSync(join(dataDir, TokenStore.fileName)), driver)
        assert.deepStrictEqual(yield* store.get(docs), Option.some(entry))
      }
    })
  )

  it.scoped("a clustered app-server on postgres without MCP_RESOURCES_TOKEN_KEY refuses to start", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "token-storage-"))
      const error = yield* Effect.flip(
        storeOf({ driver: "postgres", url: "postgres://127.0.0.1:1/none", dataDir, clustered: true }).pipe(env({}))
      )
      assert.strictEqual(error.message, TokenStorage.keyRequiredWhenClustered)
      assert.include(error.message, "MCP_RESOURCES_TOKEN_KEY")
      assert.isFalse(existsSync(join(dataDir, TokenStore.fileName)))
    })
  )

  it.scoped("an invalid key on postgres is refused naming the variable; other drivers do not use it", () =>
    Effect.gen(function* () {
      const dataDir = mkdtempSync(join(tmpdir(), "token-storage-"))
      const value = "bm90LWEta2V5"
      const error = yield* Effect.flip(
        storeOf({ driver: "postgres", url: "postgres://127.0.0.1:1/none", dataDir }).pipe(
          env({ MCP_RESOURCES_TOKEN_KEY: value })
        )
      )
      assert.include(error.message, "MCP_RESOURCES_TOKEN_KEY must be 32 random bytes in base64")
      assert.notInclude(error.message, value)
      const file = yield* storeOf({ driver: "sqlite", dataDir }).pipe(env({ MCP_RESOURCES_TOKEN_KEY: value }))
      yield* file.set(docs, entry)
      assert.isTrue(existsSync(join(dataDir, TokenStore.fileName)))
    })
  )
})
