/**
 * One `mcp/skill` resource to one catalog entry (skills.md section 3). Pure: a resource that breaks a
 * rule gives `None` and counts as skipped.
 */
import type { AppServer, Mcp } from "@mcp-resources/protocol"
import { Option } from "effect"
import {
  characterCount,
  collapseWhitespace,
  escapeHtml,
  hasControlCharacter,
  isValidSkillUri,
  maxPackageUriLength
} from "./SkillUri.js"

/** The `mimeType` of a skill resource; any other resource is ignored silently. */
export const skillMimeType = "mcp/skill"

/** The longest skill name and plugin name, after whitespace collapsing. */
export const maxNamePartLength = 64

/** The longest full name `{plugin_name}:{skill_name}`. */
export const maxNameLength = 128

/** True when the resource is published as a skill (`mimeType` exactly `mcp/skill`). */
export const isSkillResource = (resource: Mcp.Resource): boolean => resource.mimeType === skillMimeType

/** A `skill_name` or `plugin_name`: a string, whitespace-collapsed, non-empty, at most 64 characters, no control characters, no `&`, `<`, `>`. */
export const validNamePart = (value: unknown): Option.Option<string> => {
  if (typeof value !== "string") return Option.none()
  const collapsed = collapseWhitespace(value)
  if (collapsed === "" || characterCount(collapsed) > maxNamePartLength) return Option.none()
  if (hasControlCharacter(collapsed) || /[&<>]/.test(collapsed)) return Option.none()
  return Option.some(collapsed)
}

/** The entry's visibility: hidden only when `allow_implicit_invocation` is the boolean `false`. */
export const isVisible = (meta: Readonly<Record<string, unknown>>): boolean => meta.allow_implicit_invocation !== false

/** The main resource: the URI without trailing `/` characters, followed by `/SKILL.md`. */
export const mainResourceOf = (uri: string): string => `${uri.replace(/\/+$/, "")}/SKILL.md`

/**
 * Validates a resource against skills.md section 3 (URI rule S(1024), `_meta`, names, description);
 * `None` when it is skipped. The `mimeType` is not checked here (see {@link isSkillResource}).
 */
export const toEntry = (resource: Mcp.Resource): Option.Option<typeof AppServer.SkillEntry.Type> => {
  if (!isValidSkillUri(resource.uri, maxPackageUriLength)) return Option.none()
  const meta: unknown = resource._meta
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return Option.none()
  const fields = meta as Readonly<Record<string, unknown>>
  const skillName = validNamePart(fields.skill_name)
  if (Option.isNone(skillName)) return Option.none()
  let name = skillName.value
  if (fields.source !== "user") {
    const pluginName = validNamePart(fields.plugin_name)
    if (Option.isNone(pluginName)) return Option.none()
    name = `${pluginName.value}:${skillName.value}`
    if (characterCount(name) > maxNameLength) return Option.none()
  }
  const description = collapseWhitespace(resource.description ?? "")
  if (hasControlCharacter(description)) return Option.none()
  return Option.some({
    name,
    description: escapeHtml(description),
    package: resource.uri,
    mainResource: mainResourceOf(resource.uri),
    visible: isVisible(fields)
  })
}
