import { assert, describe, it } from "@effect/vitest"
import { AppServer, Messages as ProtocolMessages } from "@mcp-resources/protocol"
import { CallScopedRead } from "@mcp-resources/resource-origins"
import { SkillMessages } from "@mcp-resources/skills"
import { Ajv } from "ajv"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fill } from "../src/Blocks.js"
import { appServerDocument, configDocument, files, hooksDocument } from "../src/JsonSchemas.js"
import * as Messages from "../src/Messages.js"
import { repoRoot, stale } from "../src/Reference.js"

const root = repoRoot(NodePath.dirname(new URL(import.meta.url).pathname))

const compiler = (document: Record<string, unknown>) => {
  const ajv = new Ajv({ strict: true, allErrors: true })
  ajv.addVocabulary([
    "x-protocolVersion",
    "x-methods",
    "x-notifications",
    "x-clientNotifications",
    "x-entries",
    "x-serverRequests"
  ])
  ajv.addSchema(document, "doc")
  return (name: string) => {
    const validate = ajv.getSchema(`doc#/$defs/${name}`)
    if (validate === undefined) throw new Error(`no definition ${name}`)
    return (value: unknown) => validate(value) === true
  }
}

const committed = (file: string) => JSON.parse(NodeFs.readFileSync(NodePath.join(root, file), "utf8"))

describe("the committed reference is current", () => {
  it("the JSON Schemas and the generated blocks of docs/ equal what the generator gives (run pnpm gen:reference)", () => {
    assert.deepStrictEqual(stale(root), [])
  })

  it("the app-server package publishes its schemas", () => {
    const pkg = committed("apps/app-server/package.json") as { files: Array<string> }
    assert.include(pkg.files, "schemas")
    assert.isTrue(files.appServer.startsWith("apps/app-server/schemas/"))
  })
})

describe("the tool hooks JSON Schema", () => {
  it("compiles and accepts the decisions of docs/policy.md, refusing a bad one", () => {
    const valid = compiler(hooksDocument())
    assert.isTrue(valid("BeforeToolDecision")({ decision: "allow" }))
    assert.isTrue(valid("BeforeToolDecision")({ decision: "deny", reason: "r" }))
    assert.isTrue(valid("BeforeToolDecision")({ decision: "rewrite", arguments: { uri: "x" } }))
    // a deny without a reason is a deny (the host gives it one); a reason that is not a string is refused
    assert.isTrue(valid("BeforeToolDecision")({ decision: "deny" }))
    assert.isFalse(valid("BeforeToolDecision")({ decision: "deny", reason: 5 }))
    assert.isTrue(valid("AfterToolDecision")({ decision: "redact", redact: ["s"] }))
    assert.isTrue(valid("AfterToolDecision")({ decision: "replace", output: "o", success: false }))
    assert.isFalse(valid("AfterToolDecision")({ decision: "redact", redact: [""] }))
    assert.isTrue(
      valid("HookInput")({
        hook: "before_tool",
        callId: "c",
        tool: "read_mcp_resource",
        caller: "model",
        arguments: null
      })
    )
    assert.isTrue(
      valid("HookInput")({
        hook: "before_tool",
        callId: "c/widget/1",
        tool: "mcp__shop__buy",
        server: "shop",
        caller: "widget",
        originCallId: "c",
        arguments: {}
      })
    )
    assert.isFalse(valid("HookInput")({ hook: "before_tool", callId: "c", tool: "t", caller: "user", arguments: null }))
    assert.isTrue(
      valid("ToolAudit")({
        callId: "c",
        tool: "t",
        rules: [{ uri: "u", allowed: false, pattern: "p" }],
        hidden: 0,
        listed: [],
        before: [{ hook: "before_tool[0]", decision: "deny", reason: "r" }],
        after: [],
        serverRequest: false,
        success: false
      })
    )
  })
})

describe("the app-server JSON Schema", () => {
  const document = appServerDocument()
  const schema = compiler(document)
  const methods = document["x-methods"] as Record<string, { params: { $ref: string }; result: { $ref: string } }>
  const defName = (ref: { $ref: string }) => ref.$ref.replace("#/$defs/", "")

  it("names params and result for every method the server answers, and params for every notification", () => {
    assert.deepStrictEqual(Object.keys(methods), Object.keys(AppServer.methods))
    assert.deepStrictEqual(Object.keys(document["x-notifications"] as object), Object.keys(AppServer.notifications))
    for (const entry of Object.values(methods)) {
      schema(defName(entry.params))
      schema(defName(entry.result))
    }
  })

  const startedItem = {
    type: "mcpToolCall",
    id: "c1",
    server: "codex",
    tool: "list_mcp_resources",
    arguments: null,
    status: "inProgress",
    result: null,
    error: null,
    durationMs: null
  }
  const samples: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ["InitializeParams", { clientInfo: { name: "t", version: "1" } }, true],
    ["InitializeParams", { clientInfo: { name: "t" }, capabilities: { serverRequests: ["elicitation"] } }, true],
    ["InitializeParams", { clientInfo: {} }, false],
    ["InitializeParams", { clientInfo: { name: "t" }, capabilities: { serverRequests: "elicitation" } }, false],
    [
      "InitializeResult",
      { serverInfo: { name: "mcp-resources-app-server", version: "0.1.0" }, protocolVersion: 1 },
      true
    ],
    [
      "InitializeResult",
      {
        serverInfo: { name: "mcp-resources-app-server", version: "0.1.0" },
        protocolVersion: 1,
        capabilities: { toolProfiles: ["codex", "extended"] }
      },
      true
    ],
    ["InitializeResult", { serverInfo: { name: "other", version: "0.1.0" }, protocolVersion: 1 }, false],
    ["ThreadStartParams", {}, true],
    ["ThreadStartParams", { ephemeral: true, config: { truncation: { mode: "bytes", limit: 8000 } } }, true],
    ["ThreadStartParams", { config: { truncation: { mode: "lines", limit: 8000 } } }, false],
    ["ThreadStartParams", { config: { truncation: { mode: "bytes", limit: 1.5 } } }, false],
    ["ThreadStartResult", { thread: { id: "6f1c", ephemeral: false } }, true],
    ["ThreadListResult", { threads: [{ id: "a", ephemeral: true, createdAt: "2026-12-01T20:00:00.000Z" }] }, true],
    ["ThreadRollbackParams", { threadId: "a", numTurns: 0 }, true],
    ["ThreadRollbackParams", { threadId: "a", numTurns: -1 }, false],
    [
      "ToolCallParams",
      { threadId: "a", turnId: "t1", callId: "c1", name: "list_mcp_resources", arguments: "{}" },
      true
    ],
    ["ToolCallParams", { threadId: "a", turnId: "t1", callId: "c1", name: "x", arguments: {} }, false],
    ["ToolCallResult", { callId: "c1", output: '{"resources":[]}', success: true }, true],
    [
      "ToolListResult",
      {
        tools: [
          {
            type: "function",
            name: "read_mcp_resource",
            description: "d",
            strict: false,
            parameters: { type: "object" }
          }
        ]
      },
      true
    ],
    ["McpResourceReadParams", { threadId: null, originCallId: null, server: "s", uri: "u", connectorId: null }, true],
    [
      "McpResourceReadResult",
      {
        contents: [
          { uri: "u", mimeType: "text/plain", text: "x" },
          { uri: "v", blob: "AA==" }
        ],
        originCallId: null
      },
      true
    ],
    ["McpResourceReadResult", { contents: [{ uri: "u" }], originCallId: null }, false],
    ["McpServerListResult", { servers: [{ name: "a", status: "failed", transport: "stdio", error: "boom" }] }, true],
    ["McpServerListResult", { servers: [{ name: "a", status: "crashed", transport: "stdio" }] }, false],
    [
      "SkillsListResult",
      {
        skills: [
          { name: "p:s", description: "", package: "skill://p/s", mainResource: "skill://p/s/SKILL.md", visible: true }
        ],
        warnings: [],
        truncated: false
      },
      true
    ],
    ["SkillsReadResult", { resource: "skill://p/s/SKILL.md", contents: "# s", next_cursor: null }, true],
    ["SkillsReadResult", { resource: "skill://p/s/SKILL.md", contents: "# s", next_cursor: "c" }, false],
    ["TurnStartedNotification", { threadId: "a", turnId: "t1" }, true],
    ["ItemStartedNotification", { threadId: "a", turnId: "t1", item: startedItem }, true],
    [
      "ItemCompletedNotification",
      {
        threadId: "a",
        turnId: "t1",
        item: {
          ...startedItem,
          status: "completed",
          result: { content: [{ type: "text", text: '{"resources":[]}' }], isError: false },
          error: null,
          durationMs: 3
        }
      },
      true
    ],
    [
      "ItemStartedNotification",
      {
        threadId: "a",
        turnId: "t1",
        item: { ...startedItem, status: "running" }
      },
      false
    ],
    ["ThreadRolledBackNotification", { threadId: "a", numTurns: 1 }, true],
    ["CancelRequestParams", { id: 4 }, true],
    ["CancelRequestParams", { id: true }, false]
  ]
  for (const [name, sample, valid] of samples) {
    it(`${name} ${valid ? "accepts" : "rejects"} ${JSON.stringify(sample)}`, () => {
      assert.strictEqual(schema(name)(sample), valid)
    })
  }

  it("definitions are named as types in other languages can be", () => {
    for (const name of Object.keys(document.$defs as object)) assert.match(name, /^[A-Za-z_][A-Za-z0-9_]*$/)
  })
})

describe("the config JSON Schema", () => {
  const validate = new Ajv({ strict: true, allErrors: true }).compile(configDocument())

  it("accepts a config of every section and refuses unknown keys and out-of-bounds timeouts", () => {
    assert.isTrue(
      validate({
        mcp_servers: {
          docs: { command: "node", args: ["docs-server.js"], env: { K: "v" }, startup_timeout_sec: 30 },
          hosted: { url: "http://127.0.0.1:3001/mcp", bearer_token_env_var: "HOSTED_TOKEN", enabled: false }
        },
        orchestrator: { mcp: { enabled: false }, skills: { enabled: true } },
        apps: { server_name: "codex_apps", connectors: { c: { enabled: true, tools: { t: { enabled: false } } } } },
        truncation: { mode: "bytes", limit: 8000 },
        persistence: { driver: "postgres", url: "postgres://x" }
      })
    )
    assert.isTrue(validate({ mcpServers: { a: { type: "stdio", command: "node" } } }))
    assert.isFalse(validate({ mcp_servers: { a: { command: "node", colour: "red" } } }))
    assert.isFalse(validate({ mcp_servers: { a: { command: "node", startup_timeout_sec: 0 } } }))
    assert.isFalse(validate({ mcp_servers: { a: { command: "node", tool_timeout_sec: 86401 } } }))
    assert.isFalse(validate({ persistence: { driver: "mysql" } }))
  })
})

describe("every message is documented", () => {
  const documented = (docs: ReadonlyArray<Messages.MessageDoc>) => docs.map((d) => d.key).sort()

  it("protocol Messages", () => {
    assert.deepStrictEqual(
      documented(Messages.runtimeAndTools),
      Messages.exportedKeys(ProtocolMessages, Messages.helpers.Messages!)
    )
  })
  it("protocol AppServer.messages", () => {
    assert.deepStrictEqual(documented(Messages.appServer), Messages.exportedKeys(AppServer.messages, []))
  })
  it("resource-origins CallScopedRead", () => {
    assert.deepStrictEqual(
      documented(Messages.origins),
      Messages.exportedKeys(CallScopedRead, Messages.helpers.CallScopedRead!)
    )
  })
  it("skills SkillMessages", () => {
    assert.deepStrictEqual(documented(Messages.skills), Messages.exportedKeys(SkillMessages, []))
  })
})

describe("generated blocks", () => {
  it("replace only the text between their markers", () => {
    const text = "prose\n<!-- BEGIN GENERATED: a -->\nold\n<!-- END GENERATED: a -->\nmore prose\n"
    assert.strictEqual(
      fill("x.md", text, { a: "new\n" }),
      "prose\n<!-- BEGIN GENERATED: a -->\nnew\n<!-- END GENERATED: a -->\nmore prose\n"
    )
  })
  it("a block without a generator or without its END marker fails, naming the file and the block", () => {
    assert.throws(
      () => fill("x.md", "<!-- BEGIN GENERATED: b -->\n<!-- END GENERATED: b -->", {}),
      "x.md: no generator for the block b"
    )
    assert.throws(
      () => fill("x.md", "<!-- BEGIN GENERATED: b -->\n", { b: "" }),
      "x.md: generated block b has no END marker"
    )
  })
})
