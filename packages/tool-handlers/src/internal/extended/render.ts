/**
 * Rendering of the extended profile: read and tool-result content through the content policy (images
 * as image parts, text-like blobs as text, other binary described), list output with large resources
 * marked and template variables, bidi controls escaped, and the outcomes the lifecycle records.
 */
import { Config, type AppServer, type Mcp, Records, Truncation as ProtocolTruncation } from "@mcp-resources/protocol"
import { Either } from "effect"
import * as ContentPolicy from "../../ContentPolicy.js"
import * as Truncation from "../../Truncation.js"
import type { ToolContext } from "../context.js"
import * as Lifecycle from "../lifecycle.js"
import { escapeControls, escapeControlsJson } from "./hygiene.js"
import { messages, minWindowBytes, windowReserveBytes } from "./messages.js"
import * as Templates from "./templates.js"
import { isRecord } from "@mcp-resources/protocol/Records"
import { byteLength } from "@mcp-resources/protocol/Utf8"

/** The output budget in bytes: the effective truncation limit (tokens count 4 bytes). */
export const budgetBytes = (policy: ProtocolTruncation.TruncationPolicy): number => {
  const effective = ProtocolTruncation.effective(policy)
  return effective.mode === "bytes" ? effective.limit : effective.limit * 4
}

/** The largest window under a budget: the budget less {@link windowReserveBytes}, at least {@link minWindowBytes}. */
export const windowCap = (budget: number): number => Math.max(minWindowBytes, budget - windowReserveBytes)

export const policyOptions = (ctx: ToolContext): ContentPolicy.Options => ({
  maxImageBytes: ctx.config.tools?.maxImageBytes ?? Config.toolsDefaults.maxImageBytes
})

/** What a rendering gives: the model's text, the images sent, the item's image summaries. */
export interface Rendered {
  readonly text: string
  readonly images: ReadonlyArray<ContentPolicy.ImagePart & { readonly uri?: string }>
  /** True when the text is a window of a longer one. */
  readonly windowed?: boolean
}

export const label = (uri: string, mimeType: string | undefined): string =>
  mimeType === undefined ? escapeControls(uri) : `${escapeControls(uri)} (${escapeControls(mimeType)})`

/** The outcome of a rendering: output text, content items, and an item result without image bytes. */
export const renderedOutcome = (
  output: string,
  images: Rendered["images"],
  isError: boolean,
  extra: { readonly structuredContent?: unknown } = {}
): Lifecycle.Outcome => {
  const contentItems: Array<AppServer.ContentItem> = [{ type: "text", text: output }]
  const summaries: Array<Mcp.ContentBlock> = []
  for (const image of images) {
    contentItems.push({
      type: "image",
      mimeType: image.mimeType,
      data: image.data,
      ...(image.uri === undefined ? {} : { uri: image.uri })
    })
    summaries.push({
      type: "imageSummary",
      mimeType: image.mimeType,
      size: image.size,
      sha256: image.sha256,
      ...(image.uri === undefined ? {} : { uri: image.uri })
    })
  }
  const result: Mcp.CallToolResult = {
    content: [{ type: "text", text: output }, ...summaries],
    ...(extra.structuredContent === undefined ? {} : { structuredContent: extra.structuredContent as never }),
    isError
  }
  return {
    status: isError ? "failed" : "completed",
    result,
    error: null,
    output,
    success: !isError,
    contentItems
  }
}

/** A template entry with `variables` (the names its expressions use) after its `uriTemplate`. */
const withVariables = (entry: unknown): unknown => {
  if (!isRecord(entry) || typeof entry.uriTemplate !== "string") return entry
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) {
    Records.setOwn(out, key, value)
    if (key === "uriTemplate") out.variables = Templates.variablesOf(value as string)
  }
  return out
}

const marked = (entry: unknown, budget: number): unknown =>
  isRecord(entry) && typeof entry.size === "number" && entry.size > budget ? { ...entry, large: true } : entry

/**
 * The output of a list tool in the extended profile: the codex payload with `"large": true` on every
 * resource whose listed `size` is over the output budget, and bidi controls escaped.
 */
export const listOutput = (ctx: ToolContext, pieces: ReadonlyArray<string>): string => {
  const json = pieces.join("")
  let text = json
  if (json.includes(`"size":`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resources)) {
      const budget = budgetBytes(ctx.truncation)
      text = JSON.stringify({ ...payload, resources: payload.resources.map((entry) => marked(entry, budget)) })
    }
  }
  if (json.includes(`"resourceTemplates":[{`)) {
    const payload = JSON.parse(json) as Record<string, unknown>
    if (Array.isArray(payload.resourceTemplates)) {
      text = JSON.stringify({ ...payload, resourceTemplates: payload.resourceTemplates.map(withVariables) })
    }
  }
  return Truncation.truncateOutput(escapeControlsJson(text), ctx.truncation)
}

/** The outcome of a list tool in the extended profile. */
export const listOutcome = (ctx: ToolContext, pieces: ReadonlyArray<string>): Lifecycle.Outcome => {
  const output = listOutput(ctx, pieces)
  return {
    status: "completed",
    result: { content: [{ type: "text", text: output }], isError: false },
    error: null,
    output,
    success: true
  }
}

/** A failure message of the extended profile: bidi controls escaped. */
export const failureOutcome = (message: string): Lifecycle.Outcome => Lifecycle.failure(escapeControls(message))

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** Renders an MCP tool result through the content policy. */
export const renderToolResult = (
  ctx: ToolContext,
  server: string,
  result: Mcp.CallToolResult
): Either.Either<Rendered, string> => {
  const options = policyOptions(ctx)
  const lines: Array<string> = []
  const images: Array<ContentPolicy.ImagePart & { uri?: string }> = []
  let texts = 0
  const blob = (
    owner: object,
    data: unknown,
    mimeType: string | undefined,
    path: string,
    name: string,
    uri: string | undefined
  ): string | undefined => {
    const part = ContentPolicy.blobPart(owner, typeof data === "string" ? data : "-", mimeType, options)
    if (Either.isLeft(part)) return messages.invalidToolBlob(path)
    const value = part.right
    if (value._tag === "text") {
      texts++
      lines.push(`[${name}: text decoded from a blob, ${value.bytes().length} bytes]`, escapeControls(value.text))
    } else if (value._tag === "image") {
      images.push(uri === undefined ? value : { ...value, uri })
      lines.push(`[${name}: ${ContentPolicy.describe(value, options, images.length)}]`)
    } else {
      lines.push(`[${name}: ${ContentPolicy.describe(value, options)}]`)
    }
    return undefined
  }
  for (let i = 0; i < result.content.length; i++) {
    const block = result.content[i]! as Record<string, unknown> & { readonly type: string }
    const mimeType = str(block.mimeType)
    let refused: string | undefined
    switch (block.type) {
      case "text":
        texts++
        lines.push(escapeControls(str(block.text) ?? ""))
        break
      case "image":
      case "audio":
        refused = blob(block, block.data, mimeType, `content.${i}.data`, `content[${i}] ${block.type}`, undefined)
        break
      case "resource": {
        const resource = isRecord(block.resource) ? block.resource : {}
        const uri = str(resource.uri) ?? ""
        const type = str(resource.mimeType)
        const name = `content[${i}] embedded resource ${label(uri, type)}`
        if (typeof resource.text === "string") {
          texts++
          lines.push(`[${name}: text, ${byteLength(resource.text)} bytes]`, escapeControls(resource.text))
        } else {
          refused = blob(resource, resource.blob, type, `content.${i}.resource.blob`, name, uri)
        }
        break
      }
      case "resource_link": {
        const uri = str(block.uri) ?? ""
        const facts = [
          str(block.name) === undefined ? undefined : `name ${escapeControls(JSON.stringify(block.name))}`,
          mimeType === undefined ? undefined : escapeControls(mimeType),
          typeof block.size === "number" ? `${block.size} bytes` : undefined
        ].filter((f) => f !== undefined)
        const call = escapeControlsJson(JSON.stringify({ server, uri }))
        lines.push(
          `[content[${i}] resource link ${escapeControls(uri)}${facts.length === 0 ? "" : ` (${facts.join(", ")})`}: not read yet; read it with read_mcp_resource ${call}]`
        )
        break
      }
      default:
        lines.push(`[content[${i}] of type ${escapeControls(JSON.stringify(block.type))}: not shown]`)
    }
    if (refused !== undefined) return Either.left(refused)
  }
  if (texts === 0 && result.structuredContent !== undefined) {
    lines.push(`structuredContent: ${escapeControlsJson(JSON.stringify(result.structuredContent))}`)
  }
  return Either.right({ text: Truncation.truncateOutput(lines.join("\n"), ctx.truncation), images })
}

/** The outcome of an MCP tool result in the extended profile. */
export const toolResultOutcome = (ctx: ToolContext, server: string, result: Mcp.CallToolResult): Lifecycle.Outcome => {
  const rendered = renderToolResult(ctx, server, result)
  if (Either.isLeft(rendered)) return Lifecycle.failure(rendered.left)
  return renderedOutcome(rendered.right.text, rendered.right.images, result.isError === true, {
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
  })
}
