/**
 * The skills catalog (skills.md sections 2 and 3): entries in discovery order, warnings and the
 * truncation flag, built from listed resources, and its prompt rendering.
 */
import type { AppServer, Mcp } from "@mcp-resources/protocol"
import { Option } from "effect"
import * as SkillMessages from "./SkillMessages.js"
import { isSkillResource, toEntry } from "./SkillResource.js"

/**
 * One skill of the catalog, the entry of `skills/list` (`AppServer.SkillEntry`; its key order is the
 * wire order): `name` is `{plugin_name}:{skill_name}` (the skill name alone for `source: "user"`),
 * `description` whitespace-collapsed and HTML-escaped, `package` the resource URI as listed,
 * `mainResource` the package URI without trailing `/` followed by `/SKILL.md`, and `visible` false
 * only when `_meta.allow_implicit_invocation` is the boolean `false`.
 */
export type SkillEntry = typeof AppServer.SkillEntry.Type

/** The result of discovery: `{skills, warnings, truncated}`. */
export interface Catalog {
  readonly skills: ReadonlyArray<SkillEntry>
  readonly warnings: ReadonlyArray<string>
  readonly truncated: boolean
}

/** The most visible entries a catalog keeps. */
export const maxVisible = 100

/** The most hidden entries a catalog keeps. */
export const maxHidden = 1000

/** `{skills: [], warnings: [], truncated: false}`. */
export const emptyCatalog: Catalog = { skills: [], warnings: [], truncated: false }

/** The catalog stored for a failed discovery: no skills, the failure message as its only warning. */
export const failed = (message: string): Catalog => ({ skills: [], warnings: [message], truncated: false })

/**
 * Builds a catalog from resources in page order, then list order: non-skill resources are ignored,
 * invalid ones are counted as skipped, entries beyond the caps are dropped. `warnings` (from
 * pagination) come first; `truncated` is true when pagination already stopped at its page limit.
 */
export const fromResources = (
  resources: Iterable<Mcp.Resource>,
  options: { readonly warnings?: ReadonlyArray<string>; readonly truncated?: boolean } = {}
): Catalog => {
  const skills: Array<SkillEntry> = []
  let visible = 0
  let hidden = 0
  let skipped = 0
  let truncated = options.truncated ?? false
  for (const resource of resources) {
    if (!isSkillResource(resource)) continue
    const entry = toEntry(resource)
    if (Option.isNone(entry)) {
      skipped++
      continue
    }
    if (entry.value.visible ? visible >= maxVisible : hidden >= maxHidden) {
      truncated = true
      continue
    }
    if (entry.value.visible) visible++
    else hidden++
    skills.push(entry.value)
  }
  const warnings = [...(options.warnings ?? [])]
  if (truncated) warnings.push(SkillMessages.truncated)
  if (skipped > 0) warnings.push(SkillMessages.skipped(skipped))
  return { skills, warnings, truncated }
}

/** One line per visible entry, in order, joined with `\n`: `- {name}: {description} (orchestrator package: {package})`. */
export const renderCatalog = (catalog: Catalog): string =>
  catalog.skills
    .filter((entry) => entry.visible)
    .map((entry) => `- ${entry.name}: ${entry.description} (orchestrator package: ${entry.package})`)
    .join("\n")
