/**
 * Tool profiles as values: each holds its resource tools (spec and what runs a call), its completion
 * tool and its entry into the content pipeline (Content.ts). {@link codex} is resource-tools.md byte
 * for byte; {@link extended} derives its specs from codex's by override and adds windows, templates,
 * completion and content as parts (images as images, text-like blobs decoded, other binary described).
 * A host's own profile is a value of the same shape, usually one of these with a field replaced
 * ({@link withTool}, {@link withoutCompletion}); put it in `ToolContext.profile`.
 */
import type { Config, ToolPayload } from "@mcp-resources/protocol"
import * as Content from "./Content.js"
import * as CodexRead from "./internal/codex/read.js"
import type * as Context from "./internal/context.js"
import * as Complete from "./internal/extended/complete.js"
import * as ExtendedRead from "./internal/extended/read.js"
import * as Search from "./internal/extended/search.js"
import * as List from "./internal/list.js"
import * as ToolSpecs from "./ToolSpecs.js"

/** A tool profile: its resource tools, its completion tool (offered when a server declares `completions`), its content pipeline entry. */
export type Profile = Context.Profile

/** A tool of a profile: the spec the model sees and what runs a call of it. */
export type ProfileTool = Context.ProfileTool

const codexList: List.ListStyle = {
  hiddenCount: false,
  optionalTemplates: false,
  outcome: (ctx, pieces) => Content.codex.list(Content.budgetOf(ctx), pieces),
  failure: Content.codex.failure
}

/** The codex profile: the three resource tools of resource-tools.md, MCP results as their JSON text. */
export const codex: Profile = {
  name: "codex",
  resourceTools: [
    { spec: ToolSpecs.listMcpResources, run: List.listTool("resources", codexList) },
    { spec: ToolSpecs.listMcpResourceTemplates, run: List.listTool("templates", codexList) },
    { spec: ToolSpecs.readMcpResource, run: CodexRead.callReadTool }
  ],
  content: Content.codex,
  followsReads: false
}

/** The context's profile offers `search_mcp_resources` (a host's profile value may leave it out). */
const offersSearch = (ctx: Context.ToolContext): boolean =>
  typeof ctx.profile !== "object" ||
  ctx.profile.resourceTools.some((tool) => tool.spec.name === ToolSpecs.searchMcpResources.name)

const extendedList: List.ListStyle = {
  hiddenCount: true,
  optionalTemplates: true,
  // an aggregate list over the budget points to search_mcp_resources where the profile offers it
  outcome: (ctx, pieces, aggregate) =>
    Content.extended.list(Content.budgetOf(ctx), pieces, offersSearch(ctx) ? aggregate : undefined),
  failure: Content.extended.failure
}

/**
 * The extended profile: reads in windows and by template, search across every server's resources, a
 * completion tool, images as images and other binary described, bidi controls escaped, hidden entries
 * counted, optional templates, an aggregate list too long for one output pointing to the search.
 */
export const extended: Profile = {
  name: "extended",
  resourceTools: [
    { spec: ToolSpecs.extended.listMcpResources, run: List.listTool("resources", extendedList) },
    { spec: ToolSpecs.extended.listMcpResourceTemplates, run: List.listTool("templates", extendedList) },
    { spec: ToolSpecs.extended.readMcpResource, run: ExtendedRead.callReadTool },
    { spec: ToolSpecs.searchMcpResources, run: Search.callSearchTool }
  ],
  completion: { spec: ToolSpecs.completeMcpResourceArgument, run: Complete.callCompleteTool },
  content: Content.extended,
  followsReads: true
}

const byName: Readonly<Record<Config.ToolProfile, Profile>> = { codex, extended }

/** The profile of a tool context: its value, or the one its config name names (default codex). */
export const of = (profile: Config.ToolProfile | Profile | undefined): Profile =>
  profile === undefined ? codex : typeof profile === "string" ? byName[profile] : profile

/** `profile` with the spec of its resource tool `name` replaced (e.g. a host's own description). */
export const withTool = (
  profile: Profile,
  name: string,
  spec: (spec: ToolPayload.ToolSpec) => ToolPayload.ToolSpec
): Profile => ({
  ...profile,
  resourceTools: profile.resourceTools.map((tool) =>
    tool.spec.name === name ? { ...tool, spec: spec(tool.spec) } : tool
  )
})

/** `profile` without its completion tool. */
export const withoutCompletion = (profile: Profile): Profile => {
  const { completion: _, ...rest } = profile
  return rest
}
