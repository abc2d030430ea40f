/**
 * Markdown tables rendered from the generated JSON Schemas, so that the reference in `docs/` says what
 * the schemas say: one row per field (nested objects as dotted paths), its type, whether it is required.
 */
import type { JsonSchema } from "./JsonSchemas.js"

/** One field of a table. */
export interface FieldRow {
  readonly path: string
  readonly type: string
  readonly required: boolean
  readonly note: string
}

const isObject = (u: unknown): u is JsonSchema => typeof u === "object" && u !== null && !Array.isArray(u)

/** The definitions a document's `$ref`s point into. */
export type Defs = Readonly<Record<string, JsonSchema>>

const refName = (schema: JsonSchema): string | undefined =>
  typeof schema.$ref === "string" ? schema.$ref.replace("#/$defs/", "") : undefined

/** A definition that gets its own table (a record with fields) rather than being written inline. */
export const isNamedType = (def: JsonSchema): boolean => isObject(def.properties) || Array.isArray(def.anyOf)

/** The GitHub anchor of a `### Name` heading. */
export const anchor = (name: string): string => `#${name.toLowerCase()}`

const code = (value: unknown) => `\`${JSON.stringify(value)}\``

const bounds = (schema: JsonSchema): string => {
  const parts: Array<string> = []
  if (typeof schema.exclusiveMinimum === "number") parts.push(`> ${schema.exclusiveMinimum}`)
  if (typeof schema.minimum === "number") parts.push(`>= ${schema.minimum}`)
  if (typeof schema.exclusiveMaximum === "number") parts.push(`< ${schema.exclusiveMaximum}`)
  if (typeof schema.maximum === "number") parts.push(`<= ${schema.maximum}`)
  return parts.join(", ")
}

/** A short type text: `string`, `integer >= 0`, `"codex"`, `string or null`, `Thread[]`, `map of string`. */
export const typeText = (schema: JsonSchema, defs: Defs): string => {
  const name = refName(schema)
  if (name !== undefined) {
    const def = defs[name]
    if (def === undefined) throw new Error(`no definition ${name}`)
    if (isNamedType(def)) return `[${name}](${anchor(name)})`
    const { $ref: _ref, ...local } = schema
    return typeText({ ...def, ...local, title: undefined }, defs)
  }
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Array<JsonSchema>).map((s) => typeText(s, defs)).join(" or ")
  }
  if (Array.isArray(schema.enum)) return (schema.enum as Array<unknown>).map(code).join(" or ")
  if ("const" in schema) return code(schema.const)
  switch (schema.type) {
    case "string": {
      if (typeof schema.pattern === "string") return `string matching \`${schema.pattern}\``
      if (schema.minLength === 1) return "non-empty string"
      return "string"
    }
    case "number":
    case "integer": {
      const b = bounds(schema)
      return b === "" ? schema.type : `${schema.type} ${b}`
    }
    case "boolean":
    case "null":
      return schema.type
    case "array": {
      const items = isObject(schema.items) ? typeText(schema.items, defs) : "any JSON value"
      return items.includes(" ") && !items.startsWith("[") ? `(${items})[]` : `${items}[]`
    }
    case "object": {
      if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return "object"
      if (isObject(schema.additionalProperties)) {
        return `map of ${typeText(schema.additionalProperties, defs)}`
      }
      return "object"
    }
    default:
      return "any JSON value"
  }
}

/** The inline (unnamed) object a field holds, directly or as array items, with the path suffix to use. */
const nested = (schema: JsonSchema, defs: Defs): { schema: JsonSchema; suffix: string } | undefined => {
  if (refName(schema) !== undefined) return undefined
  if (schema.type === "object" && isObject(schema.properties) && Object.keys(schema.properties).length > 0) {
    return { schema, suffix: "." }
  }
  if (schema.type === "array" && isObject(schema.items)) {
    const inner = nested(schema.items, defs)
    if (inner !== undefined) return { schema: inner.schema, suffix: `[]${inner.suffix}` }
  }
  if (schema.type === "object" && isObject(schema.additionalProperties)) {
    const inner = nested(schema.additionalProperties, defs)
    if (inner !== undefined) return { schema: inner.schema, suffix: `.NAME${inner.suffix}` }
  }
  return undefined
}

/** The note of a field: its description, unless it is one of effect's own refinement texts (which carry a title). */
const noteOf = (schema: JsonSchema): string =>
  typeof schema.description === "string" && schema.title === undefined ? schema.description : ""

/** Every field of an object schema, nested inline objects flattened into dotted paths. */
export const fieldRows = (schema: JsonSchema, defs: Defs, prefix = ""): ReadonlyArray<FieldRow> => {
  const name = refName(schema)
  if (name !== undefined && prefix === "") {
    const def = defs[name]
    if (def !== undefined && isObject(def.properties)) return fieldRows(def, defs, prefix)
  }
  if (!isObject(schema.properties)) return []
  const required = new Set(Array.isArray(schema.required) ? (schema.required as Array<string>) : [])
  const rows: Array<FieldRow> = []
  for (const [key, child] of Object.entries(schema.properties)) {
    if (!isObject(child)) continue
    const path = `${prefix}${key}`
    rows.push({ path, type: typeText(child, defs), required: required.has(key), note: noteOf(child) })
    const inner = nested(child, defs)
    if (inner !== undefined) rows.push(...fieldRows(inner.schema, defs, `${path}${inner.suffix}`))
  }
  return rows
}

/** A field table, or a sentence when the object has no fields. */
export const fieldTable = (schema: JsonSchema, defs: Defs, empty = "`{}` (no fields)"): string => {
  const rows = fieldRows(schema, defs)
  if (rows.length === 0) {
    const name = refName(schema)
    return name !== undefined && isNamedType(defs[name] ?? {}) ? typeText(schema, defs) : empty
  }
  const withNotes = rows.some((r) => r.note !== "")
  const header = withNotes
    ? "| field | type | required | notes |\n| --- | --- | --- | --- |"
    : "| field | type | required |\n| --- | --- | --- |"
  const lines = rows.map((r) =>
    withNotes
      ? `| \`${r.path}\` | ${r.type} | ${r.required ? "yes" : "no"} | ${r.note} |`
      : `| \`${r.path}\` | ${r.type} | ${r.required ? "yes" : "no"} |`
  )
  return [header, ...lines].join("\n")
}

/** A two-column table. */
export const table = (header: readonly [string, string], rows: ReadonlyArray<readonly [string, string]>): string =>
  [`| ${header[0]} | ${header[1]} |`, "| --- | --- |", ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join("\n")

/** Inline code that survives a Markdown table: backticks doubled when the text holds one, pipes escaped. */
export const inlineCode = (text: string): string => {
  const escaped = text.replaceAll("|", "\\|")
  return escaped.includes("`") ? `\`\` ${escaped} \`\`` : `\`${escaped}\``
}
