import { assert, describe, it } from "@effect/vitest"
import { ToolHandlers, ToolSpecs } from "../src/index.js"
import { specTexts } from "./utils/specTexts.js"

describe("tool specs (resource-tools.md section 3)", () => {
  it("T-1: the three specs are byte-identical to section 3, in order", () => {
    assert.deepStrictEqual(
      ToolSpecs.resourceToolSpecs.map((spec) => JSON.stringify(spec)),
      [...specTexts]
    )
    assert.strictEqual(JSON.stringify(ToolSpecs.listMcpResources), specTexts[0])
    assert.strictEqual(JSON.stringify(ToolSpecs.listMcpResourceTemplates), specTexts[1])
    assert.strictEqual(JSON.stringify(ToolSpecs.readMcpResource), specTexts[2])
  })

  it("exports the Chat Completions form with the same name, description and parameters", () => {
    const [chat] = ToolHandlers.exportTools([ToolSpecs.readMcpResource], "chatCompletions")
    const spec = JSON.parse(specTexts[2])
    assert.strictEqual(
      JSON.stringify(chat),
      JSON.stringify({
        type: "function",
        function: { name: spec.name, description: spec.description, parameters: spec.parameters, strict: false }
      })
    )
  })

  it("exports the Anthropic Messages form with input_schema", () => {
    const [anthropic] = ToolHandlers.exportTools([ToolSpecs.listMcpResources], "anthropic")
    const spec = JSON.parse(specTexts[0])
    assert.strictEqual(
      JSON.stringify(anthropic),
      JSON.stringify({ name: spec.name, description: spec.description, input_schema: spec.parameters })
    )
  })

  it("exports the Responses form unchanged", () => {
    assert.deepStrictEqual(
      ToolHandlers.exportTools(ToolSpecs.resourceToolSpecs, "responses").map((spec) => JSON.stringify(spec)),
      [...specTexts]
    )
  })
})
