/**
 * The published JSON Schema of the protocol (`schemas/app-server.schema.json`), loaded as a client in
 * another language would, and checks of what the server sent against it.
 */
import { readFileSync } from "node:fs"
import { Ajv } from "ajv"

/** The published document. */
export const document = JSON.parse(
  readFileSync(new URL("../../schemas/app-server.schema.json", import.meta.url), "utf8")
) as {
  "x-methods": Record<string, { params: { $ref: string }; result: { $ref: string } }>
  "x-notifications": Record<string, { params: { $ref: string } }>
}

const ajv = new Ajv({ strict: true, allErrors: true })
ajv.addVocabulary(["x-protocolVersion", "x-methods", "x-notifications", "x-clientNotifications", "x-serverRequests"])
ajv.addSchema(document, "app-server")

/** The validation errors of `value` against a `$ref` of the document, or `[]`. */
export const problems = (ref: { $ref: string }, value: unknown): ReadonlyArray<string> => {
  const validate = ajv.getSchema(`app-server${ref.$ref}`)
  if (validate === undefined) return [`no schema ${ref.$ref}`]
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

/** The validation errors of a method's result, or `[]`. */
export const resultProblems = (method: string, result: unknown): ReadonlyArray<string> => {
  const entry = document["x-methods"][method]
  return entry === undefined ? [`${method}: not in x-methods`] : problems(entry.result, result)
}

/** The validation errors of a notification's params, or `[]`. */
export const notificationProblems = (method: string, params: unknown): ReadonlyArray<string> => {
  const entry = document["x-notifications"][method]
  return entry === undefined ? [`${method}: not in x-notifications`] : problems(entry.params, params)
}
