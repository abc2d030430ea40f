/**
 * The CLI commands that run one model tool: `tools`, `list`, `templates`, `read`, `complete` and `call`.
 * Each builds the arguments the model would pass, runs the tool through `ToolHandlers` (so the output is
 * the model's, byte for byte: `--json` prints it as it is), and prints it readable otherwise.
 */
import { type Config, Messages, type ToolPayload } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { LifecycleSink, OptionalTemplates, ToolHandlers } from "@mcp-resources/tool-handlers"
import { ResourceClient as Client } from "@mcp-resources/resource-client"
import { Console, Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type Profile, partialFailureExitCode, type ToolCommand } from "../CliCommands.js"
import * as Readable from "./readable.js"
import { clientLayer, setupFor } from "./setup.js"

/** The server a command is about, when it names one. */
const namedServer = (command: ToolCommand): string | undefined =>
  command._tag === "tools" ? undefined : command.server

/** The profile a command runs on: `--profile`, else the extended one for what only it has, else the config's. */
export const profileOf = (command: ToolCommand, config: Config.Config): Profile =>
  command.profile ?? (command.extendedOnly ? "extended" : config.tools.profile)

/** The model's function call of a command (`call` is resolved against the tool names separately). */
const toolCall = (command: Exclude<ToolCommand, { _tag: "tools" | "call" }>): { name: string; arguments: string } => {
  switch (command._tag) {
    case "list":
    case "templates":
      return {
        name: command._tag === "list" ? "list_mcp_resources" : "list_mcp_resource_templates",
        arguments: JSON.stringify({
          ...(command.server !== undefined ? { server: command.server } : {}),
          ...(command.cursor !== undefined ? { cursor: command.cursor } : {})
        })
      }
    case "read": {
      const target =
        command.target._tag === "uri"
          ? { uri: command.target.uri }
          : { uriTemplate: command.target.uriTemplate, arguments: command.target.values }
      return {
        name: "read_mcp_resource",
        arguments: JSON.stringify({
          server: command.server,
          ...target,
          ...(command.offset !== undefined ? { offset: command.offset } : {}),
          ...(command.length !== undefined ? { length: command.length } : {})
        })
      }
    }
    case "complete":
      return {
        name: "complete_mcp_resource_argument",
        arguments: JSON.stringify({
          server: command.server,
          uriTemplate: command.uriTemplate,
          argument: command.variable,
          value: command.value,
          ...(Object.keys(command.context).length > 0 ? { context: command.context } : {})
        })
      }
  }
}

/** Servers of the set that failed to start. */
const failedServers = (set: ResourceClient.ConnectionSet) => set.servers().filter((s) => s.status === "failed")

/** Saves media into `dir` (made on first use: `--image-dir`, else a new temp folder), one file each. */
const saver = (dir: string | undefined, stem: string): Readable.Save => {
  let folder = dir
  let count = 0
  return (media) => {
    if (folder === undefined) folder = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "mcp-resources-call-"))
    else NodeFs.mkdirSync(folder, { recursive: true })
    count += 1
    const file = NodePath.resolve(folder, `${stem}-${count}.${Readable.extensionOf(media.mimeType)}`)
    NodeFs.writeFileSync(file, Buffer.from(media.data, "base64"))
    return file
  }
}

/** What to print for a successful output, and the exit code. */
interface Shown {
  readonly stdout: string
  readonly stderr?: string
  readonly code: number
}

const show = (command: ToolCommand, output: ToolHandlers.ToolOutput, save: Readable.Save): Shown => {
  const text = output.output
  const images = (output.contentItems ?? []).flatMap((item) => (item.type === "image" ? [item] : []))
  // extended: the images went to the model as images; here they go to files
  const saved = images.map((image, i) => `[image ${i + 1} (${image.mimeType}) saved to ${save(image)}]`)
  switch (command._tag) {
    case "list":
    case "templates": {
      const partial = command.server === undefined && Readable.realFailures(command._tag, text).length > 0
      const code = partial ? partialFailureExitCode : 0
      return { stdout: command.json ? text : Readable.listing(command._tag, text), code }
    }
    case "read":
      if (command.json)
        return saved.length === 0 ? { stdout: text, code: 0 } : { stdout: text, stderr: saved.join("\n"), code: 0 }
      return { stdout: [Readable.read(text), ...saved].join("\n"), code: 0 }
    case "complete":
      return { stdout: command.json ? text : Readable.completion(text), code: 0 }
    default: {
      if (command.json) {
        return saved.length === 0 ? { stdout: text, code: 0 } : { stdout: text, stderr: saved.join("\n"), code: 0 }
      }
      const body = output.contentItems === undefined ? Readable.toolResult(text, save) : text
      return { stdout: [body, ...saved].join("\n"), code: 0 }
    }
  }
}

const print = (shown: Shown) =>
  Effect.as(
    Effect.zipRight(Console.log(shown.stdout), shown.stderr === undefined ? Effect.void : Console.error(shown.stderr)),
    shown.code
  )

/** The model function name of `tool` on `server` in the binding, or the CLI's message why there is none. */
const mcpToolName = (ctx: ToolHandlers.ToolContext, server: string, tool: string) =>
  Effect.gen(function* () {
    const registry = yield* ToolHandlers.toolRegistry(ctx)
    const named = registry.tools.find((t) => t.server === server && t.tool.name === tool)
    if (
      named !== undefined &&
      ToolHandlers.isModelVisible(named.tool) &&
      ToolHandlers.isModelToolEnabled(ctx, server, named.tool)
    ) {
      return { _tag: "found" as const, name: named.name }
    }
    const status = ctx.set.servers().find((s) => s.name === server)
    if (status === undefined || status.status === "disabled") {
      return { _tag: "missing" as const, message: Messages.unknownServer(server) }
    }
    if (status.status === "failed") {
      return { _tag: "missing" as const, message: `MCP server '${server}' failed to start: ${status.error ?? ""}` }
    }
    const offered = registry.tools
      .filter(
        (t) =>
          t.server === server &&
          ToolHandlers.isModelVisible(t.tool) &&
          ToolHandlers.isModelToolEnabled(ctx, server, t.tool)
      )
      .map((t) => t.tool.name)
    return {
      _tag: "missing" as const,
      message: `MCP server '${server}' offers the model no tool '${tool}'; its tools: ${offered.length === 0 ? "(none)" : offered.join(", ")}`
    }
  })

/** Runs one tool command against the config; its exit code. */
export const run = (command: ToolCommand, config: Config.Config) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* Client.ResourceClient
      const set = yield* client.acquire
      const server = namedServer(command)
      // A listing of every server waits for each one's startup, so that it is complete.
      if (server === undefined) yield* set.awaitAllSettled
      const ctx: ToolHandlers.ToolContext = {
        set,
        config,
        orchestratorMcpEnabled: config.orchestrator.mcpEnabled,
        truncation: config.truncation,
        profile: profileOf(command, config)
      }
      if (command._tag === "tools") {
        const specs: ReadonlyArray<ToolPayload.ToolSpec> = yield* ToolHandlers.listTools(ctx)
        yield* Console.log(
          command.json
            ? JSON.stringify(specs)
            : specs.length === 0
              ? "(no tools: no enabled MCP server is configured)"
              : specs.map((s) => `${s.name}\n    ${s.description.split("\n")[0]}`).join("\n")
        )
        return failedServers(set).length > 0 ? partialFailureExitCode : 0
      }
      let call: { name: string; arguments: string }
      if (command._tag === "call") {
        const found = yield* mcpToolName(ctx, command.server, command.tool)
        if (found._tag === "missing") {
          yield* Console.error(`mcp-resources: ${found.message}`)
          return 1
        }
        call = { name: found.name, arguments: JSON.stringify(command.arguments) }
      } else call = toolCall(command)
      const output = yield* ToolHandlers.callTool(ctx, { callId: "cli", ...call })
      if (!output.success) {
        // readable: a server without the optional template list has no templates (codex: its failure)
        if (
          command._tag === "templates" &&
          !command.json &&
          command.server !== undefined &&
          OptionalTemplates.isUnimplementedOutput(command.server, output.output)
        ) {
          yield* Console.log("(no resource templates)")
          return 0
        }
        yield* Console.error(output.output)
        return 1
      }
      const stem = command._tag === "call" ? command.tool.replace(/[^\w.-]+/g, "_") : "image"
      const imageDir = command._tag === "call" ? command.imageDir : undefined
      return yield* print(show(command, output, saver(imageDir, stem)))
    })
  ).pipe(
    Effect.provide(
      Layer.merge(clientLayer(setupFor(config, namedServer(command)), command.dataDir), LifecycleSink.layerNoop)
    )
  )
