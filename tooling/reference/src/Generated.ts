/**
 * The generated blocks of the reference in `docs/`, by name. Every body is rendered from a schema or
 * from the packages' own values (tool specs, messages, bounds); the prose around the blocks is
 * hand-written.
 */
import { AppServer } from "@mcp-resources/protocol"
import { OriginState } from "@mcp-resources/resource-origins"
import { Catalog, Discovery, SkillResource, SkillUri } from "@mcp-resources/skills"
import { ToolSpecs } from "@mcp-resources/tool-handlers"
import * as CliTables from "./CliTables.js"
import { keys as configKeys } from "./ConfigKeys.js"
import { appServerDocument, canonical, configDocument, type JsonSchema } from "./JsonSchemas.js"
import { anchor, type Defs, fieldRows, fieldTable, inlineCode, isNamedType, table } from "./Markdown.js"
import * as Messages from "./Messages.js"

/** The files of `docs/` that hold generated blocks, relative to the repository root. */
export const docFiles = [
  "docs/app-server-protocol.md",
  "docs/config.md",
  "docs/tools.md",
  "docs/origins.md",
  "docs/skills.md",
  "docs/cli.md",
  "docs/installing.md"
] as const

type Entry = { readonly params?: JsonSchema; readonly result?: JsonSchema }

const messageTable = (docs: ReadonlyArray<Messages.MessageDoc>): string =>
  table(
    ["message", "when"],
    docs.map((d) => [inlineCode(d.text), d.when])
  )

const methodBlock = (entry: Entry, defs: Defs): string =>
  [
    "**Params**",
    "",
    fieldTable(entry.params ?? {}, defs, "`{}` (no fields; params may be omitted)"),
    "",
    "**Result**",
    "",
    fieldTable(entry.result ?? {}, defs, "`{}`")
  ].join("\n")

/** Named types of the app-server document that get a table of their own, by name. */
const typesBlock = (defs: Defs, entries: ReadonlySet<string>): string => {
  const named = Object.keys(defs).filter((name) => isNamedType(defs[name]!) && !entries.has(name))
  return named
    .map((name) => {
      const def = defs[name]!
      const body = Array.isArray(def.anyOf)
        ? `One of: ${(def.anyOf as Array<JsonSchema>).map((s) => fieldRows({ properties: { x: s } }, defs)[0]!.type).join(", ")}.`
        : fieldTable(def, defs)
      return `### ${name}\n\n${body}`
    })
    .join("\n\n")
}

const configBlock = (): string => {
  const document = configDocument()
  const rows = fieldRows(document, document.$defs as Defs)
  const seen = new Set<string>()
  const lines = rows.map((row) => {
    const doc = configKeys[row.path]
    if (doc === undefined) {
      throw new Error(`docs/config.md: the config key ${row.path} has no entry in tooling/reference/src/ConfigKeys.ts`)
    }
    seen.add(row.path)
    return [inlineCode(row.path), row.type, doc.default, doc.meaning] as const
  })
  const stale = Object.keys(configKeys).filter((key) => !seen.has(key))
  if (stale.length > 0) throw new Error(`ConfigKeys.ts documents keys the config has not: ${stale.join(", ")}`)
  return [
    "| key | type and bounds | default | meaning |",
    "| --- | --- | --- | --- |",
    ...lines.map((cells) => `| ${cells.join(" | ")} |`)
  ].join("\n")
}

const json = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``

/** Every generated block body by name. */
export const bodies = (): Readonly<Record<string, string>> => {
  const document = appServerDocument()
  const defs = document.$defs as Defs
  const methods = document["x-methods"] as Record<string, Entry>
  const notifications = document["x-notifications"] as Record<string, Entry>
  const clientNotifications = document["x-clientNotifications"] as Record<string, Entry>
  const serverRequests = document["x-serverRequests"] as Record<string, Entry>
  const resolve = (entry: Entry): Entry => {
    const deref = (s: JsonSchema | undefined) =>
      s !== undefined && typeof s.$ref === "string" ? defs[s.$ref.replace("#/$defs/", "")] : s
    const params = deref(entry.params)
    const result = deref(entry.result)
    return { ...(params !== undefined ? { params } : {}), ...(result !== undefined ? { result } : {}) }
  }
  const out: Record<string, string> = {
    "cli:server-flags": CliTables.serverFlags(),
    "cli:commands": CliTables.commands(),
    "cli:options": CliTables.options(),
    "cli:exit-codes": CliTables.exitCodes()
  }
  for (const [method, entry] of Object.entries(methods)) {
    if (method !== canonical(method)) continue
    out[`method:${method}`] = methodBlock(resolve(entry), defs)
  }
  for (const [method, entry] of Object.entries(serverRequests)) {
    out[`method:${method}`] = methodBlock(resolve(entry), defs)
  }
  out.notifications = Object.entries(notifications)
    .map(([method, entry]) => `### ${method}\n\n${fieldTable(resolve(entry).params ?? {}, defs)}`)
    .join("\n\n")
  out["client-notifications"] = Object.entries(clientNotifications)
    .map(([method, entry]) => {
      const params = resolve(entry).params ?? {}
      const fields = fieldRows(params, defs)
      return `### ${method}\n\n${fields.length === 0 ? "Any params (ignored)." : fieldTable(params, defs)}`
    })
    .join("\n\n")
  const entryNames = new Set(
    [methods, notifications, clientNotifications, serverRequests].flatMap((group) =>
      Object.values(group).flatMap((entry) =>
        [entry.params, entry.result].map((s) => String(s?.$ref ?? "").replace("#/$defs/", ""))
      )
    )
  )
  out.types = typesBlock(defs, entryNames)
  out["method-index"] = table(
    ["method", "params → result"],
    Object.entries(methods).map(([method, entry]) => {
      const name = (s: JsonSchema | undefined) => String(s?.$ref ?? "").replace("#/$defs/", "")
      return [
        `[\`${method}\`](${anchor(canonical(method).replaceAll("/", ""))})`,
        `${name(entry.params)} → ${name(entry.result)}`
      ]
    })
  )
  out.errors = [
    "| code | message | when |",
    "| --- | --- | --- |",
    ...Messages.appServer
      .filter((d) => d.code !== undefined)
      .map((d) => `| \`${d.code}\` | ${inlineCode(d.text)} | ${d.when} |`)
  ].join("\n")
  out["error-codes"] = table(
    ["name", "code"],
    Object.entries(AppServer.ErrorCode).map(([name, code]) => [name, `\`${code}\``])
  )
  out.capabilities = table(
    ["capability", "values today"],
    [
      ["`toolProfiles`", AppServer.toolProfiles.map((p) => `\`${p}\``).join(", ")],
      ["`serverRequests`", (AppServer.serverCapabilities.serverRequests ?? []).map((m) => `\`${m}\``).join(", ")],
      ["`oauthLogin`", "`true`"],
      ["`skillsExtension`", "`true`"]
    ]
  )
  out.limits = table(
    ["limit", "value"],
    [
      ["longest line or frame (bytes, without the newline)", `${AppServer.maxLineBytes}`],
      ["deepest nesting of params", `${AppServer.maxParamsDepth} levels`]
    ]
  )
  out["config-keys"] = configBlock()
  out["tool-specs"] = [ToolSpecs.listMcpResources, ToolSpecs.listMcpResourceTemplates, ToolSpecs.readMcpResource]
    .map((spec) => `**\`${spec.name}\`**\n\n${json(spec)}`)
    .join("\n\n")
  out["extended-read-spec"] =
    `Spec (the extended profile's \`ToolSpecs.extended.readMcpResource\`):\n\n${json(ToolSpecs.extended.readMcpResource)}`
  out["search-tool-spec"] =
    `Spec (the extended profile's \`ToolSpecs.searchMcpResources\`):\n\n${json(ToolSpecs.searchMcpResources)}`
  out["tool-messages"] = messageTable(Messages.runtimeAndTools)
  out["origin-messages"] = messageTable(Messages.origins)
  out["origin-bounds"] = table(
    ["bound", "value"],
    [
      ["origins kept per thread", `${OriginState.maxOrigins}`],
      ["turn ids kept per thread", `${OriginState.maxTurns}`],
      ["size of one origin (bytes)", `${OriginState.maxOriginBytes}`],
      ["size of one turn id (bytes)", `${OriginState.maxTurnIdBytes}`]
    ]
  )
  out["skill-messages"] = messageTable(Messages.skills)
  out["skill-bounds"] = table(
    ["bound", "value"],
    [
      ["discovery pages", `${Discovery.maxPages}`],
      ["visible skills", `${Catalog.maxVisible}`],
      ["hidden skills", `${Catalog.maxHidden}`],
      ["skill name part (characters)", `${SkillResource.maxNamePartLength}`],
      ["full skill name (characters)", `${SkillResource.maxNameLength}`],
      ["package URI (characters)", `${SkillUri.maxPackageUriLength}`],
      ["resource URI (characters)", `${SkillUri.maxResourceUriLength}`]
    ]
  )
  return out
}
