/**
 * The one question every reader asks the resource rules (docs/policy.md): `ResourcePolicy.access` for
 * a principal (the config and a thread's deny patterns) and a server, and `guardRead`, the refusal of a
 * read as an `AccessError` with the rules' message.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Config from "../src/Config.js"
import * as Messages from "../src/Messages.js"
import * as ResourcePolicy from "../src/ResourcePolicy.js"

const server = (name: string, resources?: { allow?: Array<string>; deny?: Array<string> }): Config.McpServerConfig =>
  ({ name, ...(resources === undefined ? {} : { resources }) }) as unknown as Config.McpServerConfig

const config: Config.Config = {
  ...Config.empty,
  resources: { deny: ["file:///home/**"] },
  mcpServers: [server("docs", { allow: ["docs://{+path}"] }), server("fs")]
}

describe("ResourcePolicy.access", () => {
  it("answers reads and listed entries of one server for one principal, the thread's deny included", () => {
    const fs = ResourcePolicy.access({ config, threadDeny: ["file:///repo/.env"] }, "fs")
    assert.isTrue(fs.read("file:///repo/a.txt").allowed)
    assert.deepStrictEqual(fs.read("file:///home/ann"), {
      allowed: false,
      rule: { list: "deny", pattern: "file:///home/**" }
    })
    assert.deepStrictEqual(fs.read("file:///repo/%2Eenv"), {
      allowed: false,
      rule: { list: "deny", pattern: "file:///repo/.env" }
    })
    assert.isTrue(fs.listed("resource", "file:///repo/a.txt"))
    assert.isFalse(fs.listed("resource", "file:///home/ann"))
    assert.isFalse(fs.listed("template", "file:///home/{user}"))
    // without the thread, its pattern does not apply
    assert.isTrue(ResourcePolicy.access({ config }, "fs").read("file:///repo/.env").allowed)
    // the server's allow list replaces the default one
    const docs = ResourcePolicy.access({ config }, "docs")
    assert.isTrue(docs.read("docs://guide/a").allowed)
    assert.isFalse(docs.read("other://x").allowed)
  })

  it("without any rule: no rules, everything read and listed; applies says whether any rule may apply", () => {
    const none = ResourcePolicy.access({ config: Config.empty }, "fs")
    assert.isUndefined(none.rules)
    assert.isTrue(none.read("file:///home/ann").allowed)
    assert.isTrue(none.listed("template", "file:///home/{user}"))
    assert.isFalse(ResourcePolicy.applies({ config: Config.empty }))
    assert.isTrue(ResourcePolicy.applies({ config: Config.empty, threadDeny: ["x://**"] }))
    assert.isTrue(ResourcePolicy.applies({ config }))
  })

  it.effect("guardRead refuses with the rules' message (denied, or not judged), and lets an allowed read pass", () =>
    Effect.gen(function* () {
      const denied = yield* Effect.either(ResourcePolicy.guardRead({ config }, "fs", "file:///home/ann"))
      assert.isTrue(Either.isLeft(denied))
      if (Either.isLeft(denied)) {
        assert.strictEqual(denied.left._tag, "AccessError")
        assert.strictEqual(denied.left.message, Messages.policy.readDenied("file:///home/ann"))
      }
      const unjudged = yield* Effect.either(ResourcePolicy.guardRead({ config }, "fs", "file:///repo/a%2Fb"))
      assert.isTrue(Either.isLeft(unjudged))
      if (Either.isLeft(unjudged)) {
        const decision = ResourcePolicy.access({ config }, "fs").read("file:///repo/a%2Fb")
        assert.strictEqual(unjudged.left.message, ResourcePolicy.refusal("file:///repo/a%2Fb", decision))
        assert.isFalse(decision.allowed)
        assert.isDefined(!decision.allowed && decision.unjudgeable)
      }
      assert.isTrue(Either.isRight(yield* Effect.either(ResourcePolicy.guardRead({ config }, "fs", "file:///repo/a"))))
    })
  )
})
