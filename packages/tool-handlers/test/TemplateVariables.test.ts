/** The variables a template names, and the extended read's argument parsing on arbitrary input. */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { Arguments, Extended } from "../src/index.js"

describe("template variables", () => {
  it("each expression's names, once each, operators and modifiers dropped", () => {
    assert.deepStrictEqual(Extended.templateVariables("x://{a}/{+b}{#c}{.d}{/e,f}{;g}{?h,i}{&j}"), [
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
      "j"
    ])
    assert.deepStrictEqual(Extended.templateVariables("x://{word:3}/{list*}/{word}"), ["word", "list"])
    assert.deepStrictEqual(Extended.templateVariables("x://fixed"), [])
  })

  it("parseReadTarget never throws: every input is a target or a model-facing message", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.dictionary(fc.string(), fc.string()))
    fc.assert(
      fc.property(
        fc.record(
          { server: value, uri: value, uriTemplate: value, arguments: value, offset: value },
          { requiredKeys: [] }
        ),
        (raw) => {
          const parsed = Arguments.parseReadArguments(JSON.stringify(raw), { window: true, templates: true })
          if (Either.isLeft(parsed)) return parsed.left.message.length > 0
          return parsed.right._tag === "uri" ? parsed.right.uri.length > 0 : parsed.right.uriTemplate.length > 0
        }
      ),
      { numRuns: 2000 }
    )
  })
})
