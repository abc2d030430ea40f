/**
 * Function names of MCP tools (resource-tools.md section 11.1): `mcp__{server}__{tool}`, sanitised,
 * at most 64 characters, unique over the catalog, and reversible through the registry.
 */
import { createHash } from "node:crypto"
import type { Mcp } from "@mcp-resources/protocol"
import { compareBytewise } from "@mcp-resources/protocol/Utf8"
import { Option } from "effect"

/** One tool of the catalog with its assigned function name. */
export interface NamedTool {
  readonly name: string
  readonly server: string
  readonly tool: Mcp.Tool
}

/** The name registry of one catalog. */
export interface Registry {
  /** Every named tool: servers in bytewise order, each server's tools in listed order. */
  readonly tools: ReadonlyArray<NamedTool>
  /** Tools that still collided after hashing and got no name (logged as warnings by the handlers). */
  readonly dropped: ReadonlyArray<{ readonly server: string; readonly tool: string }>
  /** The tool behind a function name. */
  readonly lookup: (name: string) => Option.Option<NamedTool>
  /** The function name of a server's tool. */
  readonly nameOf: (server: string, tool: string) => Option.Option<string>
}

/** The catalog of one server, in listed order. */
export interface ServerTools {
  readonly server: string
  readonly tools: ReadonlyArray<Mcp.Tool>
}

/** The longest function name. */
export const maxNameLength = 64

/** Replaces every character outside `[A-Za-z0-9_-]` (a code point, not a UTF-16 unit) with `_`. */
export const sanitize = (s: string): string => s.replace(/[^A-Za-z0-9_-]/gu, "_")

/** Ascending comparison of UTF-8 byte sequences (`Utf8.compareBytewise` of protocol). */
export { compareBytewise }

/** `{first 55 characters}_{first 8 hex digits of sha256(server + U+0000 + tool)}` */
const hashedName = (base: string, server: string, tool: string): string =>
  `${base.slice(0, 55)}_${createHash("sha256").update(`${server}\u0000${tool}`, "utf8").digest("hex").slice(0, 8)}`

const key = (server: string, tool: string): string => `${server}\u0000${tool}`

/** Assigns function names over the whole catalog (servers in bytewise order, tools in listed order). */
export const assignNames = (catalog: ReadonlyArray<ServerTools>): Registry => {
  const byName = new Map<string, NamedTool>()
  const byTool = new Map<string, string>()
  const tools: Array<NamedTool> = []
  const dropped: Array<{ server: string; tool: string }> = []
  const servers = [...catalog].sort((a, b) => compareBytewise(a.server, b.server))
  for (const { server, tools: serverTools } of servers) {
    for (const tool of serverTools) {
      const base = sanitize(`mcp__${server}__${tool.name}`)
      const name = base.length > maxNameLength || byName.has(base) ? hashedName(base, server, tool.name) : base
      if (byName.has(name)) {
        dropped.push({ server, tool: tool.name })
        continue
      }
      const named: NamedTool = { name, server, tool }
      byName.set(name, named)
      if (!byTool.has(key(server, tool.name))) byTool.set(key(server, tool.name), name)
      tools.push(named)
    }
  }
  return {
    tools,
    dropped,
    lookup: (name) => Option.fromNullable(byName.get(name)),
    nameOf: (server, tool) => Option.fromNullable(byTool.get(key(server, tool)))
  }
}
