/**
 * RFC 6570 resource templates of the extended profile: the variables a template names (read off its
 * expressions) and the expansion, which is the `url-template` library's (levels 1 to 4, the encoding
 * of each operator), never ours.
 */
import { Messages } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect } from "effect"
import { parseTemplate } from "url-template"
import { escapeControls } from "./hygiene.js"
import { messages } from "./messages.js"

/** The operators of RFC 6570 section 2.2 (the reserved ones `=,!@|` included, so that they are never read as names). */
const operators = new Set(["+", "#", ".", "/", ";", "?", "&", "=", ",", "!", "@", "|"])

/**
 * The variable names of a template, each once, in order of first appearance: every `{…}` expression,
 * its operator dropped, split at commas, each name without its explode (`*`) or prefix (`:n`) modifier.
 */
export const variablesOf = (template: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    let expression = match[1]!
    if (expression.length > 0 && operators.has(expression[0]!)) expression = expression.slice(1)
    for (const spec of expression.split(",")) {
      const name = spec.trim().replace(/\*$/, "").replace(/:\d+$/, "")
      if (name !== "" && !names.includes(name)) names.push(name)
    }
  }
  return names
}

/** Why a set of values does not fit a template: the first variable without a value, or the first value without a variable. */
export type Mismatch =
  | { readonly _tag: "missing"; readonly name: string }
  | { readonly _tag: "extra"; readonly name: string }

/** The first mismatch between the template's variables and the names given, if any (every variable is required). */
export const mismatch = (variables: ReadonlyArray<string>, given: ReadonlyArray<string>): Mismatch | undefined => {
  const missing = variables.find((name) => !given.includes(name))
  if (missing !== undefined) return { _tag: "missing", name: missing }
  const extra = given.find((name) => !variables.includes(name))
  if (extra !== undefined) return { _tag: "extra", name: extra }
  return undefined
}

/** The URI of a template with every variable given a string value (RFC 6570, through `url-template`). */
export const expand = (template: string, values: Readonly<Record<string, string>>): string =>
  parseTemplate(template).expand({ ...values })

/**
 * The listed template and its variables, or the model-facing message: the template must be one the
 * server lists (its cached full list).
 */
export const listedTemplate = (
  set: ResourceClient.ConnectionSet,
  server: string,
  uriTemplate: string
): Effect.Effect<ReadonlyArray<string>, string> =>
  set.resourceTemplates(server).pipe(
    Effect.mapError((error) => Messages.toolFailure.templates(escapeControls(error.message))),
    Effect.flatMap((templates) =>
      templates.some((template) => template.uriTemplate === uriTemplate)
        ? Effect.succeed(variablesOf(uriTemplate))
        : Effect.fail(messages.templateNotListed(server, uriTemplate))
    )
  )

const mismatchMessage = (
  uriTemplate: string,
  variables: ReadonlyArray<string>,
  given: ReadonlyArray<string>
): string | undefined => {
  const found = mismatch(variables, given)
  if (found === undefined) return undefined
  return found._tag === "missing"
    ? messages.missingVariable(uriTemplate, found.name, variables)
    : messages.extraVariable(uriTemplate, found.name, variables)
}

/**
 * The URI of a listed template with the given values, expanded per RFC 6570; every variable needs a
 * value and every value a variable. Fails with the model-facing message.
 */
export const expandListed = (
  set: ResourceClient.ConnectionSet,
  server: string,
  uriTemplate: string,
  values: Readonly<Record<string, string>>
): Effect.Effect<string, string> =>
  Effect.flatMap(listedTemplate(set, server, uriTemplate), (variables) => {
    const refused = mismatchMessage(uriTemplate, variables, Object.keys(values))
    return refused === undefined ? Effect.succeed(expand(uriTemplate, values)) : Effect.fail(refused)
  })
