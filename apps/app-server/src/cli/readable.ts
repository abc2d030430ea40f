/**
 * The readable forms of the CLI: what a model tool answered, printed for a person. The `--json` form is
 * the tool output itself; these forms are built from it (so they show what the model saw), with images
 * written to files by the caller's `save`.
 */
import { OptionalTemplates } from "@mcp-resources/tool-handlers"

/** A media content to keep in a file: its MIME type and base64 data. */
export interface Media {
  readonly mimeType: string
  readonly data: string
}

/** Writes one media content to a file and answers its path. */
export type Save = (media: Media) => string

const parseObject = (output: string): Record<string, unknown> | undefined => {
  try {
    const parsed = JSON.parse(output) as unknown
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined // truncated payloads are no longer JSON, and extended outputs are text
  }
}

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

interface Failure {
  readonly server: string
  readonly error: string
}

/** The `failedServers` of a list output that are failures (a server without templates is none). */
export const realFailures = (kind: "list" | "templates", output: string): ReadonlyArray<Failure> => {
  const failures = (parseObject(output)?.failedServers ?? []) as ReadonlyArray<Failure>
  return kind === "templates"
    ? failures.filter((failure) => !OptionalTemplates.isUnimplemented(failure.server, failure.error))
    : failures
}

/** `list` and `templates`: one line per entry (`server  uri  name  mime  title`), the cursor, the failures. */
export const listing = (kind: "list" | "templates", output: string): string => {
  const payload = parseObject(output)
  if (payload === undefined) return output
  const lines: Array<string> = []
  const entries = (payload.resources ?? payload.resourceTemplates ?? []) as ReadonlyArray<Record<string, unknown>>
  for (const e of entries) {
    const what = String(e.uri ?? e.uriTemplate)
    const extra = [e.mimeType, e.title ?? e.description].filter((x) => typeof x === "string").join("  ")
    lines.push(`${e.server}  ${what}  ${e.name}${extra ? `  ${extra}` : ""}`)
  }
  if (entries.length === 0) lines.push(kind === "list" ? "(no resources)" : "(no resource templates)")
  if (typeof payload.nextCursor === "string") lines.push(`next cursor: ${payload.nextCursor}`)
  for (const f of realFailures(kind, output)) lines.push(`failed: ${f.server}: ${f.error}`)
  return lines.join("\n")
}

/** `read`: a `--- uri (mimeType)` line, then the text of each content (codex); extended outputs are text already. */
export const read = (output: string): string => {
  const payload = parseObject(output)
  if (payload === undefined) return output
  const lines: Array<string> = []
  for (const c of (payload.contents ?? []) as ReadonlyArray<Record<string, unknown>>) {
    lines.push(`--- ${c.uri}${typeof c.mimeType === "string" ? ` (${c.mimeType})` : ""}`)
    lines.push(typeof c.text === "string" ? c.text : `[blob, ${String(c.blob).length} base64 characters]`)
  }
  return lines.join("\n")
}

/** `complete`: one value per line, then whether more exist. */
export const completion = (output: string): string => {
  const payload = parseObject(output)
  if (payload === undefined || !Array.isArray(payload.values)) return output
  const values = payload.values.map(String)
  const lines = values.length === 0 ? ["(no values)"] : values
  if (payload.hasMore === true) {
    lines.push(
      `(more values exist${typeof payload.total === "number" ? `: ${payload.total} in all` : ""}; give a longer --value)`
    )
  }
  return lines.join("\n")
}

/** A codex `tools/call` result (its JSON), block by block; images and audio saved through `save`. */
export const toolResult = (output: string, save: Save): string => {
  const payload = parseObject(output)
  if (payload === undefined || !Array.isArray(payload.content)) return output
  const lines: Array<string> = []
  let texts = 0
  for (const block of payload.content as ReadonlyArray<Record<string, unknown>>) {
    const mimeType = str(block.mimeType) ?? "application/octet-stream"
    switch (block.type) {
      case "text":
        texts++
        lines.push(str(block.text) ?? "")
        break
      case "image":
      case "audio":
        lines.push(
          typeof block.data === "string"
            ? `[${block.type} ${mimeType} saved to ${save({ mimeType, data: block.data })}]`
            : `[${block.type} ${mimeType} without data]`
        )
        break
      case "resource": {
        const resource = (block.resource ?? {}) as Record<string, unknown>
        const type = str(resource.mimeType)
        lines.push(`--- ${String(resource.uri)}${type === undefined ? "" : ` (${type})`}`)
        if (typeof resource.text === "string") {
          texts++
          lines.push(resource.text)
        } else lines.push(`[blob, ${String(resource.blob).length} base64 characters]`)
        break
      }
      case "resource_link":
        lines.push(`[resource link ${String(block.uri)}${typeof block.name === "string" ? ` (${block.name})` : ""}]`)
        break
      default:
        lines.push(JSON.stringify(block))
    }
  }
  if (texts === 0 && payload.structuredContent !== undefined) {
    lines.push(`structuredContent: ${JSON.stringify(payload.structuredContent)}`)
  }
  return lines.join("\n")
}

/** The file name extension of a MIME type (`bin` when unknown). */
export const extensionOf = (mimeType: string): string => {
  const known: Record<string, string> = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/ogg": "ogg"
  }
  return known[mimeType.toLowerCase()] ?? "bin"
}
