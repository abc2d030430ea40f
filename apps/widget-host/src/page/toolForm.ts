/**
 * A widget tool's input schema as a form: a field per property of a JSON Schema object, `string`
 * as a text input, `number` and `integer` as a number input, `boolean` as a checkbox, an `enum` of
 * strings, numbers or booleans as a select; any other property as a JSON text area. A schema that is not
 * an object with `properties` gets one JSON text area for the whole arguments object. Reading the form
 * gives the arguments, or an error naming the field that is wrong.
 */

import { isRecord } from "@mcp-resources/protocol/Records"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

interface Field {
  readonly name: string
  /** The argument's value, `undefined` when left empty; throws an error naming the field. */
  readonly read: () => Json | undefined
}

const isScalar = (u: unknown): u is string | number | boolean =>
  typeof u === "string" || typeof u === "number" || typeof u === "boolean"

const label = (text: string, control: HTMLElement, hint: string | undefined): HTMLLabelElement => {
  const el = document.createElement("label")
  el.className = "field"
  const name = document.createElement("span")
  name.textContent = text
  el.append(name, " ", control)
  if (hint !== undefined && hint !== "") {
    const small = document.createElement("small")
    small.textContent = ` ${hint}`
    el.append(small)
  }
  return el
}

const parseJson = (name: string, text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    throw new Error(`${name}: not valid JSON`)
  }
}

/** One property's control and reader. */
const fieldOf = (name: string, schema: unknown, required: boolean): { control: HTMLElement; field: Field } => {
  const s = isRecord(schema) ? schema : {}
  const missing = () => {
    if (required) throw new Error(`${name} is required`)
    return undefined
  }
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every(isScalar)) {
    const values = s.enum as ReadonlyArray<string | number | boolean>
    const select = document.createElement("select")
    select.name = name
    if (!required) select.append(new Option("", ""))
    values.forEach((v, i) => {
      select.append(new Option(String(v), String(i)))
    })
    return {
      control: select,
      field: { name, read: () => (select.value === "" ? missing() : values[Number(select.value)]) }
    }
  }
  if (s.type === "boolean") {
    const box = document.createElement("input")
    box.type = "checkbox"
    box.name = name
    if (s.default === true) box.checked = true
    return { control: box, field: { name, read: () => box.checked } }
  }
  if (s.type === "number" || s.type === "integer") {
    const input = document.createElement("input")
    input.type = "number"
    input.name = name
    input.step = s.type === "integer" ? "1" : "any"
    if (typeof s.default === "number") input.value = String(s.default)
    return {
      control: input,
      field: {
        name,
        read: () => {
          if (input.value.trim() === "") return missing()
          const n = Number(input.value)
          if (!Number.isFinite(n) || (s.type === "integer" && !Number.isInteger(n)))
            throw new Error(`${name}: expected ${s.type === "integer" ? "an integer" : "a number"}`)
          return n
        }
      }
    }
  }
  if (s.type === "string") {
    const input = document.createElement("input")
    input.type = "text"
    input.name = name
    if (typeof s.default === "string") input.value = s.default
    return { control: input, field: { name, read: () => (input.value === "" ? missing() : input.value) } }
  }
  const area = document.createElement("textarea")
  area.name = name
  area.rows = 3
  area.placeholder = "JSON"
  if (s.default !== undefined) area.value = JSON.stringify(s.default)
  return {
    control: area,
    field: { name, read: () => (area.value.trim() === "" ? missing() : parseJson(name, area.value)) }
  }
}

/** The form's controls appended to `form`; the function reads the arguments (throws naming the wrong field). */
export const render = (form: HTMLElement, inputSchema: unknown): (() => Record<string, Json>) => {
  const schema = isRecord(inputSchema) ? inputSchema : {}
  const properties = schema.type === "object" || schema.type === undefined ? schema.properties : undefined
  if (!isRecord(properties)) {
    const area = document.createElement("textarea")
    area.name = "arguments"
    area.rows = 4
    area.value = "{}"
    form.append(label("arguments (JSON object)", area, undefined))
    return () => {
      const value = parseJson("arguments", area.value.trim() === "" ? "{}" : area.value)
      if (!isRecord(value)) throw new Error("arguments: expected a JSON object")
      return value as Record<string, Json>
    }
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [])
  const fields: Array<Field> = []
  for (const [name, propSchema] of Object.entries(properties)) {
    const { control, field } = fieldOf(name, propSchema, required.has(name))
    const description =
      isRecord(propSchema) && typeof propSchema.description === "string" ? propSchema.description : undefined
    form.append(label(required.has(name) ? `${name} *` : name, control, description))
    fields.push(field)
  }
  return () => {
    const args: Record<string, Json> = {}
    for (const field of fields) {
      const value = field.read()
      if (value !== undefined) args[field.name] = value
    }
    return args
  }
}
