/**
 * The token store file as another process (or an older version) left it: the registered client is
 * the authorization server's record, kept as it is, every key an own property.
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TokenStore } from "../src/index.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "token-store-"))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

describe("TokenStore file", () => {
  it.scoped("a registered client's keys named __proto__, constructor and prototype are read back as its own data", () =>
    Effect.gen(function* () {
      const file = NodePath.join(yield* tempDir, TokenStore.fileName)
      // As a dynamic client registration answered it (JSON: `__proto__` is an own key of the record).
      const client = '{"client_id":"id-1","__proto__":{"polluted":true},"constructor":"c","prototype":"p"}'
      NodeFs.writeFileSync(
        file,
        `{"version":1,"entries":[{"server":"docs","url":"https://example.com/mcp","client":${client}}]}`,
        { mode: 0o600 }
      )
      const key = { server: "docs", url: "https://example.com/mcp" }
      const store = yield* Effect.provide(TokenStore.TokenStore, TokenStore.layerFile(file))
      const entry = yield* store.get(key)
      assert.isTrue(Option.isSome(entry))
      const read = Option.getOrThrow(entry).client
      assert.deepStrictEqual(Object.keys(read ?? {}), ["client_id", "__proto__", "constructor", "prototype"])
      assert.strictEqual(Object.getPrototypeOf(read), Object.prototype)
      assert.strictEqual((read as { polluted?: unknown }).polluted, undefined)
      // Written back whole.
      yield* store.set(key, Option.getOrThrow(entry))
      const written = JSON.parse(NodeFs.readFileSync(file, "utf8")) as {
        entries: ReadonlyArray<{ client: Record<string, unknown> }>
      }
      assert.strictEqual(JSON.stringify(written.entries[0]?.client), client)
    })
  )
})
