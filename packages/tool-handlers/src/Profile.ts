/**
 * Tool profiles as values: each holds its resource tools (spec and what runs a call), its completion
 * tool and its renderers. {@link codex} is resource-tools.md byte for byte; {@link extended} derives
 * its specs from codex's by override and adds windows, templates, completion and the content policy.
 * A host's own profile is a value of the same shape, usually one of these with a field replaced
 * ({@link withTool}, {@link withoutCompletion}); put it in `ToolContext.profile`.
 */
import type { Config, ToolPayload } from "@mcp-resources/protocol"
import * as CodexRead from "./internal/codex/read.js"
import * as CodexRender from "./internal/codex/render.js"
import type * as Context from "./internal/context.js"
import * as Complete from "./internal/extended/complete.js"
import * as ExtendedRead from "./internal/extended/read.js"
import * as ExtendedRender from "./internal/extended/render.js"
import * as Search from "./internal/extended/search.js"
import * as Lifecycle from "./internal/lifecycle.js"
import * as List from "./internal/list.js"
import * as ToolSpecs from "./ToolSpecs.js"

/** A tool profile: its resource tools, its completion tool (offered when a server declares `completions`), its renderers. */
export type Profile = Context.Profile

/** A tool of a profile: the spec the model sees and what runs a call of it. */
export type ProfileTool = Context.ProfileTool

/** How a profile shows MCP tool results and failures. */
export type Renderers = Context.Renderers

const codexRender: Renderers = { toolResult: CodexRender.toolResultOutcome, failure: Lifecycle.failure }

const codexList: List.ListStyle = {
  hiddenCount: false,
  optionalTemplates: false,
  outcome: CodexRender.succeeded,
  failure: Lifecycle.failure
}

/** The codex profile: the three resource tools of resource-tools.md, MCP results as their JSON text. */
export const codex: Profile = {
  name: "codex",
  resourceTools: [
    { spec: ToolSpecs.listMcpResources, run: List.listTool("resources", codexList) },
    { spec: ToolSpecs.listMcpResourceTemplates, run: List.listTool("templates", codexList) },
    { spec: ToolSpecs.readMcpResource, run: CodexRead.callReadTool }
  ],
  render: codexRender,
  followsReads: false
}

const extendedRender: Renderers = {
  toolResult: ExtendedRender.toolResultOutcome,
  failure: ExtendedRender.failureOutcome
}

const extendedList: List.ListStyle = {
  hiddenCount: true,
  optionalTemplates: true,
  outcome: ExtendedRender.listOutcome,
  failure: ExtendedRender.failureOutcome
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
  render: extendedRender,
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
