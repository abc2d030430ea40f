/**
 * Type tests (checked by `tsc -p tsconfig.test.json`, strict, `exactOptionalPropertyTypes`): each
 * adapter's output is the framework's own tool type, accepted where the framework takes tools.
 */
import type { StructuredToolInterface } from "@langchain/core/tools"
import type { FakeStreamingChatModel } from "@langchain/core/utils/testing"
import type { Agent, Tool as AgentsSdkTool } from "@openai/agents"
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { generateText, streamText, ToolSet } from "ai"
import type * as AiSdk from "../src/AiSdk.js"
import type * as LangChain from "../src/LangChain.js"
import type * as OpenAiAgents from "../src/OpenAiAgents.js"

type AiSdkTools = Awaited<ReturnType<typeof AiSdk.resourceTools>>
type GenerateOptions = Parameters<typeof generateText<ToolSet>>[0]
type StreamOptions = Parameters<typeof streamText<ToolSet>>[0]
type AgentsTools = Awaited<ReturnType<typeof OpenAiAgents.resourceTools<{ userId: string }>>>
type AgentOptions = NonNullable<ConstructorParameters<typeof Agent<{ userId: string }>>[0]>
type LangChainTools = Awaited<ReturnType<typeof LangChain.resourceTools>>

describe("types", () => {
  it("AI SDK: a ToolSet and a repair function generateText and streamText take", () => {
    expectTypeOf<AiSdkTools["tools"]>().toEqualTypeOf<ToolSet>()
    expectTypeOf<AiSdkTools["tools"]>().toMatchTypeOf<NonNullable<GenerateOptions["tools"]>>()
    expectTypeOf<AiSdkTools["repairToolCall"]>().toMatchTypeOf<
      NonNullable<GenerateOptions["experimental_repairToolCall"]>
    >()
    expectTypeOf<AiSdkTools["repairToolCall"]>().toMatchTypeOf<
      NonNullable<StreamOptions["experimental_repairToolCall"]>
    >()
  })

  it("OpenAI Agents: function tools an Agent takes, for the agent's context type", () => {
    expectTypeOf<AgentsTools[number]>().toMatchTypeOf<AgentsSdkTool<{ userId: string }>>()
    expectTypeOf<AgentsTools>().toMatchTypeOf<NonNullable<AgentOptions["tools"]>>()
    expectTypeOf<AgentsTools[number]["type"]>().toEqualTypeOf<"function">()
  })

  it("LangChain: structured tools that bindTools takes", () => {
    expectTypeOf<LangChainTools[number]>().toMatchTypeOf<StructuredToolInterface>()
    expectTypeOf<LangChainTools>().toMatchTypeOf<Parameters<FakeStreamingChatModel["bindTools"]>[0]>()
    // an AI SDK ToolSet is not a list of LangChain tools
    expectTypeOf<AiSdkTools["tools"]>().not.toMatchTypeOf<Parameters<FakeStreamingChatModel["bindTools"]>[0]>()
  })
})
