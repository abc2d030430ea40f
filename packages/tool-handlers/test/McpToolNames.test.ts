import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { McpToolNames } from "../src/index.js"

const tool = (name: string) => ({ name, inputSchema: { type: "object" } })
const hash8 = (server: string, name: string) =>
  createHash("sha256").update(`${server}\u0000${name}`).digest("hex").slice(0, 8)

describe("MCP tool names (resource-tools.md 11.1)", () => {
  it("names a tool mcp__{server}__{tool} and maps the name back", () => {
    const registry = McpToolNames.assignNames([{ server: "srv", tools: [tool("echo")] }])
    assert.deepStrictEqual(
      registry.tools.map((t) => t.name),
      ["mcp__srv__echo"]
    )
    const found = Option.getOrThrow(registry.lookup("mcp__srv__echo"))
    assert.strictEqual(found.server, "srv")
    assert.strictEqual(found.tool.name, "echo")
    assert.deepStrictEqual(registry.nameOf("srv", "echo"), Option.some("mcp__srv__echo"))
    assert.isTrue(Option.isNone(registry.lookup("mcp__srv__other")))
  })

  it("replaces every character outside [A-Za-z0-9_-] with one underscore per code point", () => {
    const registry = McpToolNames.assignNames([{ server: "srv", tools: [tool("a.b c/😀-x_y")] }])
    assert.strictEqual(registry.tools[0]!.name, "mcp__srv__a_b_c__-x_y")
  })

  it("hashes a name over 64 characters to its first 55 characters, _, and 8 hex digits", () => {
    const long = "t".repeat(60)
    const registry = McpToolNames.assignNames([{ server: "srv", tools: [tool(long)] }])
    const base = `mcp__srv__${long}`
    assert.strictEqual(registry.tools[0]!.name, `${base.slice(0, 55)}_${hash8("srv", long)}`)
    assert.strictEqual(registry.tools[0]!.name.length, 64)
  })

  it("keeps a name of exactly 64 characters", () => {
    const name = "t".repeat(64 - "mcp__srv__".length)
    const registry = McpToolNames.assignNames([{ server: "srv", tools: [tool(name)] }])
    assert.strictEqual(registry.tools[0]!.name, `mcp__srv__${name}`)
  })

  it("hashes the later of two tools whose sanitised names collide, servers in bytewise order", () => {
    const registry = McpToolNames.assignNames([
      { server: "beta", tools: [tool("x")] },
      { server: "alpha", tools: [tool("a.b"), tool("a b")] }
    ])
    assert.deepStrictEqual(
      registry.tools.map((t) => [t.server, t.tool.name, t.name]),
      [
        ["alpha", "a.b", "mcp__alpha__a_b"],
        ["alpha", "a b", `mcp__alpha__a_b_${hash8("alpha", "a b")}`],
        ["beta", "x", "mcp__beta__x"]
      ]
    )
    assert.deepStrictEqual(registry.nameOf("alpha", "a b"), Option.some(`mcp__alpha__a_b_${hash8("alpha", "a b")}`))
  })

  it("drops a tool that still collides after hashing", () => {
    const registry = McpToolNames.assignNames([{ server: "srv", tools: [tool("dup"), tool("dup"), tool("dup")] }])
    assert.deepStrictEqual(
      registry.tools.map((t) => t.name),
      ["mcp__srv__dup", `mcp__srv__dup_${hash8("srv", "dup")}`]
    )
    assert.deepStrictEqual(registry.dropped, [{ server: "srv", tool: "dup" }])
  })

  it("assigns unique, valid names of at most 64 characters that map back to their tool", () => {
    const catalog = fc.uniqueArray(
      fc.record({
        server: fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/),
        tools: fc.array(fc.string({ unit: "binary", minLength: 1, maxLength: 80 }).map(tool), { maxLength: 6 })
      }),
      { selector: (entry) => entry.server, maxLength: 5 }
    )
    fc.assert(
      fc.property(catalog, (entries) => {
        const registry = McpToolNames.assignNames(entries)
        const names = registry.tools.map((t) => t.name)
        assert.strictEqual(new Set(names).size, names.length)
        for (const named of registry.tools) {
          assert.match(named.name, /^[A-Za-z0-9_-]{1,64}$/)
          assert.strictEqual(Option.getOrThrow(registry.lookup(named.name)), named)
        }
        const total = entries.reduce((n, e) => n + e.tools.length, 0)
        assert.strictEqual(registry.tools.length + registry.dropped.length, total)
      }),
      { numRuns: 300 }
    )
  })
})
