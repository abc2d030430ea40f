/**
 * `mcp/widget/list`, `mcp/widget/tools`, `mcp/widget/read`, `mcp/widget/callTool` and
 * `mcp/widget/readResource` (docs/widgets.md): a widget host lists the tools that show a widget (which
 * a user may call through `tool/call`), reads the UI resource of a completed MCP tool call of a thread, and proxies the widget's own
 * requests on behalf of that originating call. A widget reads only `ui://` resources of its call's
 * server and calls only that server's tools whose `_meta.ui.visibility` includes `app`; its tool calls
 * are recorded as items of the originating call's turn, marked `initiator: "widget"`, under the host
 * policy of the model's calls (the app policy, the hooks with `caller: "widget"`, the audit record).
 */
import { type Config, Errors, type Mcp, ResourcePolicy, type ToolCallItem, Widget } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { CallScopedRead } from "@mcp-resources/resource-origins"
import type { LifecycleSink } from "@mcp-resources/tool-handlers"
import { ToolHandlers, WidgetCalls } from "@mcp-resources/tool-handlers"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { invalidRequest, type MethodError, messages, method } from "../Method.js"
import type { Connection } from "../Connections.js"
import { type Thread, Threads } from "../Threads.js"
import { ToolHost } from "../ToolHost.js"

/** How many pages of `resources/list` are looked through for a widget's list entry. */
export const maxListPages = 16

const widgetsEnabled = (config: Config.Config): boolean => config.widgets?.enabled ?? true

/** The thread and the completed item of its call `callId` (refusals: widgets disabled, unknown thread or call). */
const originatingCall = (connection: Connection, threadId: string, callId: string) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    const config = yield* client.config
    if (!widgetsEnabled(config)) return yield* Effect.fail(invalidRequest(messages.widgetsDisabled))
    const threads = yield* Threads
    const thread = yield* threads.get(connection, threadId)
    const found = yield* threads.completedItem(thread, callId)
    if (Option.isNone(found) || found.value.item.status !== "completed" || found.value.item.result === null) {
      return yield* Effect.fail(invalidRequest(messages.widgetCallNotFound(callId)))
    }
    return { thread, config, threads, turnId: found.value.turnId, item: found.value.item }
  })

/** A read on the thread's binding; the apps server's own widget goes through the call-scoped read and its checks. */
const readFor = (
  threads: Threads["Type"],
  thread: Thread,
  config: Config.Config,
  item: ToolCallItem.McpToolCallItem,
  uri: string
) => {
  // host policy first, as for every read: a denied URI is refused before any request
  const principal = { config, threadDeny: thread.config.resources?.deny }
  return Effect.zipRight(
    ResourcePolicy.guardRead(principal, item.server, uri),
    item.server === config.apps.serverName && uri === item.mcpAppResourceUri
      ? CallScopedRead.readForCall({ threadId: thread.id, callId: item.id, uri })
      : Effect.map(
          threads.withToolContext(thread, (context) => context.set.readResource(item.server, uri)),
          (result) => result.contents
        )
  )
}

/** The list entry of `uri`, when the server lists it in its first {@link maxListPages} pages (a `ui://` resource need not be listed). */
const listEntry = (threads: Threads["Type"], thread: Thread, server: string, uri: string) =>
  threads.withToolContext(thread, (context) =>
    Effect.gen(function* () {
      let cursor: string | undefined
      for (let page = 0; page < maxListPages; page++) {
        const result = yield* context.set.listResources(server, cursor)
        const entry = result.resources.find((r) => r.uri === uri)
        if (entry !== undefined) return Option.some(entry)
        if (result.nextCursor === undefined) break
        cursor = result.nextCursor
      }
      return Option.none<Mcp.Resource>()
    }).pipe(
      Effect.tapError((error) => Effect.logDebug(`widget list entry lookup failed: ${error.message}`)),
      Effect.orElseSucceed(() => Option.none<Mcp.Resource>())
    )
  )

const htmlOf = (contents: Mcp.ResourceContents): string =>
  "text" in contents ? contents.text : Buffer.from(contents.blob, "base64").toString("utf8")

/** The thread a widget method names, once widgets are enabled (refused with `widgetsDisabled` otherwise). */
const widgetThread = (connection: Connection, threadId: string) =>
  Effect.gen(function* () {
    const client = yield* ResourceClient.ResourceClient
    if (!widgetsEnabled(yield* client.config)) return yield* Effect.fail(invalidRequest(messages.widgetsDisabled))
    const threads = yield* Threads
    return { threads, thread: yield* threads.get(connection, threadId) }
  })

/** The widget methods. */
export const widgetMethods = {
  "mcp/widget/list": method("mcp/widget/list", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const { threads, thread } = yield* widgetThread(connection, p.threadId)
        const items = yield* threads.completedItems(thread)
        const widgets = items.flatMap(({ turnId, item }) =>
          item.status === "completed" && item.mcpAppResourceUri !== undefined && Widget.isUiUri(item.mcpAppResourceUri)
            ? [{ callId: item.id, turnId, server: item.server, tool: item.tool, uri: item.mcpAppResourceUri }]
            : []
        )
        return { widgets }
      })
  }),
  "mcp/widget/tools": method("mcp/widget/tools", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const { threads, thread } = yield* widgetThread(connection, p.threadId)
        // the tools the model is offered (tool/list) that name a ui:// resource: what a user may call from a page
        const tools = yield* threads.withToolContext(thread, (context) =>
          Effect.map(ToolHandlers.toolRegistry(context), (registry) =>
            registry.tools.flatMap(({ name, server, tool }) => {
              const resourceUri = Widget.resourceUriOf(tool._meta)
              return resourceUri !== undefined &&
                Widget.isUiUri(resourceUri) &&
                ToolHandlers.isModelVisible(tool) &&
                ToolHandlers.isModelToolEnabled(context, server, tool)
                ? [
                    {
                      server,
                      tool: tool.name,
                      callName: name,
                      ...(tool.title === undefined ? {} : { title: tool.title }),
                      ...(tool.description === undefined ? {} : { description: tool.description }),
                      inputSchema: tool.inputSchema,
                      resourceUri
                    }
                  ]
                : []
            })
          )
        )
        return { tools }
      })
  }),
  "mcp/widget/read": method("mcp/widget/read", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const { thread, config, threads, item } = yield* originatingCall(connection, p.threadId, p.callId)
        const uri = item.mcpAppResourceUri
        if (uri === undefined || !Widget.isUiUri(uri)) {
          return yield* Effect.fail(invalidRequest(messages.widgetNoResource(p.callId)))
        }
        const contents = yield* readFor(threads, thread, config, item, uri)
        const content = contents.find((c) => c.uri === uri) ?? contents[0]
        if (content === undefined) return yield* Effect.fail(invalidRequest(messages.widgetNoResource(p.callId)))
        const entry = yield* listEntry(threads, thread, item.server, uri)
        const entryValue = Option.getOrUndefined(entry)
        return {
          server: item.server,
          callId: item.id,
          tool: item.tool,
          uri,
          mimeType: content.mimeType ?? entryValue?.mimeType ?? Widget.mimeType,
          html: htmlOf(content),
          ui: Widget.mergeUiMeta(entryValue?._meta, content._meta),
          toolInput: item.arguments ?? null,
          toolResult: item.result!
        }
      })
  }),
  "mcp/widget/readResource": method("mcp/widget/readResource", {
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const { thread, config, threads, item } = yield* originatingCall(connection, p.threadId, p.callId)
        if (!Widget.isUiUri(p.uri)) return yield* Effect.fail(invalidRequest(messages.widgetNotUiUri(p.uri)))
        const contents = yield* readFor(threads, thread, config, item, p.uri)
        return { contents }
      })
  }),
  "mcp/widget/callTool": method("mcp/widget/callTool", {
    // its items are recorded in the thread: on a cluster, the owner runs it as it runs the model's calls
    owner: (p) => p.threadId,
    run: (p, { connection }) =>
      Effect.gen(function* () {
        const { thread, threads, turnId, item } = yield* originatingCall(connection, p.threadId, p.callId)
        const tool = yield* threads.withToolContext(thread, (context) => context.set.toolInfo(item.server, p.name))
        if (Option.isNone(tool))
          return yield* Effect.fail(invalidRequest(messages.widgetToolNotFound(item.server, p.name)))
        if (!Widget.isAppVisible(tool.value._meta)) {
          return yield* Effect.fail(invalidRequest(messages.widgetToolNotForApps(p.name)))
        }
        const itemId = `${p.callId}/widget/${randomUUID()}`
        // host policy (docs/policy.md): the model's rules for this tool, the hooks, and the audit record;
        // the items are recorded as the model's are (ToolHost.ts), in the originating call's turn
        const ended = yield* Effect.flatMap(ToolHost, (host) =>
          host.widgetCall(
            thread,
            turnId,
            (
              context
            ): Effect.Effect<
              WidgetCalls.Outcome,
              MethodError | LifecycleSink.EmitError,
              LifecycleSink.LifecycleSink
            > =>
              // a tool the app policy disables is not the model's either
              ToolHandlers.isModelToolEnabled(context, item.server, tool.value)
                ? WidgetCalls.call(context, {
                    itemId,
                    originCallId: p.callId,
                    server: item.server,
                    tool: p.name,
                    ...(p.arguments === undefined ? {} : { arguments: p.arguments })
                  })
                : Effect.fail(invalidRequest(messages.widgetToolDisabled(p.name)))
          )
        )
        if (ended._tag === "failed") return yield* Effect.fail(ended.error)
        if (ended._tag === "refused") return yield* Effect.fail(new Errors.AccessError({ message: ended.message }))
        return { itemId, result: ended.result }
      }).pipe(Effect.uninterruptible)
  })
}
