/**
 * The framework-neutral core of the adapters: a thread binding turned into plain tool objects whose
 * `call` takes the model's raw argument text and runs it through `ToolHandlers.callTool` (argument
 * handling, access gate, lifecycle items, truncation, both profiles). The framework modules
 * (`AiSdk`, `OpenAiAgents`, `LangChain`) wrap these objects in their framework's tool type.
 */
import { randomUUID } from "node:crypto"
import { type AppServer, Config, type ToolPayload } from "@mcp-resources/protocol"
import { McpTransport, ResourceClient, ServerEntry } from "@mcp-resources/resource-client"
import { LifecycleSink, ResourceSearch, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect, Either, Exit, type Layer, Scope } from "effect"
import { abortReason } from "./internal/abort.js"
import * as Bodies from "./internal/bodies.js"

/** What the adapters turn into tools: a thread binding and where its lifecycle items go. */
export interface Binding {
  /**
   * The thread's tool context (its binding from `ResourceClient.acquire`, config, access gate,
   * truncation, profile), or a function giving the current one: it is read on every listing and call.
   */
  readonly context: ToolHandlers.ToolContext | (() => ToolHandlers.ToolContext)
  /** Receives every lifecycle item (`started`, then `completed`) of every call; default: dropped. */
  readonly onLifecycle?: (event: LifecycleSink.LifecycleEvent) => void
}

/** How one call runs: the framework's call id (one is made up when absent) and its abort signal. */
export interface CallOptions {
  readonly callId?: string | undefined
  readonly signal?: AbortSignal | undefined
}

/** One model tool of the binding, framework-neutral. */
export interface BridgeTool {
  /** The function name (`read_mcp_resource`, `mcp__{server}__{tool}`, ...). */
  readonly name: string
  readonly description: string
  /** The JSON Schema the model is shown (exactly the tool spec's `parameters`). */
  readonly parameters: ToolPayload.ToolSpec["parameters"]
  /**
   * Runs the call on the raw argument text. Never rejects for a failed call (`success: false` with
   * the exact message); rejects only when `signal` aborts, after the call was interrupted (an MCP
   * request in flight is cancelled).
   */
  readonly call: (rawArguments: string, options?: CallOptions) => Promise<ToolHandlers.ToolOutput>
}

/** The context a binding stands for now. */
export const contextOf = (binding: Binding): ToolHandlers.ToolContext =>
  typeof binding.context === "function" ? binding.context() : binding.context

const sinkOf = (binding: Binding): Layer.Layer<LifecycleSink.LifecycleSink> => {
  const onLifecycle = binding.onLifecycle
  return onLifecycle === undefined
    ? LifecycleSink.layerNoop
    : LifecycleSink.layerCallback((event) => onLifecycle(event))
}

/** Runs one call of the binding on the raw argument text (see {@link BridgeTool.call}). */
export const callTool = (
  binding: Binding,
  name: string,
  rawArguments: string,
  options: CallOptions = {}
): Promise<ToolHandlers.ToolOutput> => {
  const call = { callId: options.callId ?? `call_${randomUUID()}`, name, arguments: rawArguments }
  const run = ToolHandlers.callTool(contextOf(binding), call).pipe(Effect.provide(sinkOf(binding)))
  const signal = options.signal
  if (signal?.aborted === true) return Promise.reject(abortReason(signal))
  return Effect.runPromise(run, signal === undefined ? undefined : { signal }).catch((error: unknown) => {
    throw signal?.aborted === true ? abortReason(signal) : error
  })
}

/**
 * The binding's current tools (nothing without an enabled server): the resource tools of its profile
 * (on `extended` with `search_mcp_resources` and the completion tool), then every model-visible,
 * enabled MCP tool of the ready servers. Call it again for each
 * run or step: it reflects the catalog as refreshed by `notifications/tools/list_changed`.
 */
export const listTools = (binding: Binding): Promise<ReadonlyArray<BridgeTool>> =>
  Effect.runPromise(ToolHandlers.listTools(contextOf(binding))).then((specs) =>
    specs.map(
      (spec): BridgeTool => ({
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
        call: (rawArguments, options) => callTool(binding, spec.name, rawArguments, options)
      })
    )
  )

/** The raw argument text of arguments a framework already parsed (`{}` when it gave nothing). */
export const argumentText = (input: unknown): string => (input === undefined ? "{}" : JSON.stringify(input))

/** The output's parts: its text, then each image (extended profile); the text alone otherwise. */
export const contentItems = (output: ToolHandlers.ToolOutput): ReadonlyArray<AppServer.ContentItem> =>
  output.contentItems ?? [{ type: "text", text: output.output }]

/** Whether the output carries an image part. */
export const hasImages = (output: ToolHandlers.ToolOutput): boolean =>
  contentItems(output).some((item) => item.type === "image")

/** The failure a framework gets when it carries errors as exceptions: the message is the exact output. */
export class ToolCallFailed extends Error {
  override readonly name = "ToolCallFailed"
  constructor(readonly result: ToolHandlers.ToolOutput) {
    super(result.output)
  }
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** The tool profile; default the config's `[tools] profile`. */
  readonly profile?: Config.ToolProfile
  /** The access gate of the apps server (default true). */
  readonly orchestratorMcpEnabled?: boolean
  /** Receives every lifecycle item of every call. */
  readonly onLifecycle?: (event: LifecycleSink.LifecycleEvent) => void
  /** The server entries (default the config's `[mcp_servers.*]`), e.g. in-memory ones. */
  readonly servers?: ReadonlyArray<ServerEntry.ServerEntry>
}

/** A binding that owns its MCP connections: `close()` ends them (children end, sessions end). */
export interface Connected extends Binding {
  readonly context: ToolHandlers.ToolContext
  readonly close: () => Promise<void>
}

/**
 * Connects to the MCP servers of a config (a loaded `Config.Config`, or the text of a `config.toml`)
 * for hosts without an Effect runtime: starts every enabled server, waits until their startup
 * settled, and returns the thread binding the adapters take (with the index `search_mcp_resources`
 * keeps between calls, and the bodies its reads keep for `read_mcp_resource`'s `since`, in memory). Rejects with the config error (file, key
 * path, what is wrong) when the text is not a valid config.
 */
export const connect = async (config: Config.Config | string, options: ConnectOptions = {}): Promise<Connected> => {
  const loaded = typeof config === "string" ? Config.parse(config, "config.toml") : Either.right(config)
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  const setup = { config: loaded.right, servers: options.servers ?? ServerEntry.fromConfig(loaded.right).servers }
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const open = Effect.gen(function* () {
    const client = yield* ResourceClient.make(setup).pipe(Effect.provide(McpTransport.layer))
    const set = yield* client.acquire
    yield* set.awaitAllSettled
    // the index of `search_mcp_resources` (extended profile), built at its first call and kept for the next
    const search = yield* ResourceSearch.make({ updates: client.updates })
    return { set, search }
  }).pipe(Scope.extend(scope))
  const { set, search } = await Effect.runPromise(open).catch(async (error: unknown) => {
    await close()
    throw error
  })
  // the bodies its reads kept (read_mcp_resource's `since`), their reads learnt from the lifecycle items
  const bodies = Bodies.memory(setup.config.changes ?? Config.changesDefaults)
  const context: ToolHandlers.ToolContext = {
    set,
    config: setup.config,
    orchestratorMcpEnabled: options.orchestratorMcpEnabled ?? true,
    truncation: setup.config.truncation,
    profile: options.profile ?? setup.config.tools.profile,
    search,
    bodies: bodies.bodies
  }
  const onLifecycle = options.onLifecycle
  return {
    context,
    close,
    onLifecycle: (event) => {
      bodies.observe(event)
      onLifecycle?.(event)
    }
  }
}
