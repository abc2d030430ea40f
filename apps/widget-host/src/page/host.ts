/**
 * The host page: connects to the app-server over WebSocket (`bearer.<token>` subprotocol, the token from
 * the URL fragment), starts or resumes a thread (`?thread=ID`), lists the thread's MCP tool-call items as
 * they arrive and renders each widget: a sandbox proxy iframe on an origin of its own (issued by the
 * page's server for that widget), and the Apps extension's host-side bridge (`AppBridge`) over a
 * `postMessage` transport bound to that frame and origin. The widget's `tools/call` and
 * `resources/read` go to `mcp/widget/callTool` and `mcp/widget/readResource` of its originating call;
 * its `ui/message` becomes an entry of the page's conversation, its `ui/open-link` a question to the user.
 * The page also lists the servers' widget tools (`mcp/widget/tools`), each with a form built from its
 * input schema, and calls one as a user's call of its own turn (`turn/start`, `tool/call`); its widget
 * then shows as any other. The document's `load` event waits until the page is ready or failed.
 */
import { BrowserTransport, PromiseClient } from "@mcp-resources/app-server-client"
import type { AppServer, ToolCallItem } from "@mcp-resources/protocol"
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge"
import { FrameTransport } from "./frameTransport.js"
import { addMessage } from "./conversation.js"
import { confirmLink } from "./links.js"
import { holdLoad } from "./settle.js"
import * as ToolForm from "./toolForm.js"

const hostInfo = { name: "mcp-resources-widget-host", version: "0.1.0" }

const byId = (id: string): HTMLElement => document.getElementById(id)!
const releaseLoad = holdLoad()
/** The page settled: `ready` or `failed: …` (`data-status` is set only then; the load event follows). */
const setStatus = (text: string) => {
  byId("status").textContent = text
  document.body.dataset.status = text
  releaseLoad()
}
const setProgress = (text: string) => {
  byId("status").textContent = text
}

const main = async () => {
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? undefined
  const response = await fetch("/config.json")
  if (!response.ok) throw new Error(`config.json: ${response.status}`)
  const config = (await response.json()) as { appServerUrl: string }
  const client = await PromiseClient.connectTransport(
    BrowserTransport.browserWebSocket({ url: config.appServerUrl, ...(token === undefined ? {} : { token }) })
  )
  await client.initialize(hostInfo)
  setProgress("opening the thread")
  const query = new URLSearchParams(location.search)
  let threadId = query.get("thread")
  if (threadId === null) {
    threadId = (await client.request("thread/start", {})).thread.id
    history.replaceState(null, "", `?thread=${encodeURIComponent(threadId)}${location.hash}`)
  } else {
    await client.request("thread/resume", { threadId })
  }
  const thread = threadId
  byId("thread").textContent = thread
  const rendered = new Set<string>()

  const showItem = (item: ToolCallItem.McpToolCallItem) => {
    let li = document.querySelector<HTMLLIElement>(`#items li[data-call-id="${CSS.escape(item.id)}"]`)
    if (li === null) {
      li = document.createElement("li")
      li.dataset.callId = item.id
      byId("items").append(li)
    }
    li.dataset.status = item.status
    const by = item.initiator === "widget" ? ` (by the widget of ${item.originCallId})` : ""
    li.textContent = `${item.server} · ${item.tool} · ${item.status}${by}`
  }

  const renderWidget = async (callId: string) => {
    if (rendered.has(callId)) return
    rendered.add(callId)
    const box = document.createElement("div")
    box.className = "widget"
    box.dataset.callId = callId
    byId("widgets").append(box)
    try {
      const widget = await client.request("mcp/widget/read", { threadId: thread, callId })
      box.dataset.uri = widget.uri
      // a fresh origin for this widget, its proxy served under the widget's own policy
      const issued = await fetch("/sandbox", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csp: widget.ui.csp ?? null })
      })
      if (!issued.ok) throw new Error(`sandbox origin: ${issued.status}`)
      const { origin } = (await issued.json()) as { origin: string }
      if (widget.ui.prefersBorder !== false) box.classList.add("border")
      const title = document.createElement("div")
      title.textContent = `${widget.server} · ${widget.tool} · ${widget.uri}`
      const frame = document.createElement("iframe")
      // the proxy needs its own origin to hold the widget's document apart from the page
      frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms")
      frame.title = widget.uri
      box.append(title, frame)
      const bridge = new AppBridge(
        null,
        hostInfo,
        { serverTools: {}, serverResources: {}, openLinks: {}, message: { text: {} } },
        { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"] } }
      )
      bridge.oncalltool = async (params) =>
        (
          await client.request("mcp/widget/callTool", {
            threadId: thread,
            callId,
            name: params.name,
            ...(params.arguments === undefined ? {} : { arguments: params.arguments })
          })
        ).result as never
      bridge.onreadresource = async (params) =>
        (await client.request("mcp/widget/readResource", { threadId: thread, callId, uri: params.uri })) as never
      bridge.onopenlink = ({ url }) => confirmLink(box, url)
      bridge.onmessage = async (params) =>
        addMessage(byId("conversation"), { callId, server: widget.server, tool: widget.tool }, params)
      bridge.onsizechange = ({ height }) => {
        if (height !== undefined) frame.style.height = `${Math.min(Math.max(height, 80), 2000)}px`
      }
      let resourceSent = false
      bridge.addEventListener("sandboxready", () => {
        if (resourceSent) {
          // a proxy that loaded again is not the one this widget was given: the widget is stopped
          void bridge.close()
          frame.remove()
          box.classList.add("error")
          box.dataset.error = "the widget's sandbox proxy loaded again; the widget was stopped"
          return
        }
        resourceSent = true
        void bridge.sendSandboxResourceReady({
          html: widget.html,
          ...(widget.ui.csp === undefined ? {} : { csp: widget.ui.csp as never }),
          ...(widget.ui.permissions === undefined ? {} : { permissions: widget.ui.permissions as never })
        })
      })
      // nothing goes to the view before its `initialized`: then its input and result
      bridge.addEventListener("initialized", () => {
        void bridge
          .sendToolInput({ arguments: (widget.toolInput ?? {}) as Record<string, unknown> })
          .then(() => bridge.sendToolResult(widget.toolResult as never))
          .then(() => {
            box.dataset.initialized = "true"
          })
      })
      await bridge.connect(new FrameTransport(frame, origin))
      frame.src = `${origin}/sandbox.html`
    } catch (e) {
      box.classList.add("error")
      box.dataset.error = e instanceof Error ? e.message : String(e)
      box.textContent = `widget of ${callId}: ${box.dataset.error}`
    }
  }

  /** A widget tool with its form: submitting it is the user's call of the tool, in a turn of its own. */
  const showTool = (tool: AppServer.Result<"mcp/widget/tools">["tools"][number]) => {
    const form = document.createElement("form")
    form.className = "tool"
    form.dataset.server = tool.server
    form.dataset.tool = tool.tool
    const heading = document.createElement("div")
    heading.className = "tool-name"
    heading.textContent = `${tool.server} · ${tool.title ?? tool.tool}`
    const about = document.createElement("div")
    about.className = "tool-description"
    about.textContent = tool.description ?? ""
    form.append(heading, about)
    const read = ToolForm.render(form, tool.inputSchema)
    const submit = document.createElement("button")
    submit.type = "submit"
    submit.textContent = "Call"
    const outcome = document.createElement("div")
    outcome.className = "outcome"
    form.append(submit, outcome)
    form.addEventListener("submit", (event) => {
      event.preventDefault()
      let args: Record<string, unknown>
      try {
        args = read()
      } catch (e) {
        form.dataset.state = "invalid"
        outcome.textContent = e instanceof Error ? e.message : String(e)
        return
      }
      const callId = `page-${crypto.randomUUID()}`
      form.dataset.state = "calling"
      form.dataset.callId = callId
      outcome.textContent = "calling…"
      submit.disabled = true
      const turnId = `page-${crypto.randomUUID()}`
      void client
        .request("turn/start", { threadId: thread, turnId })
        .then(() =>
          client.request("tool/call", {
            threadId: thread,
            turnId,
            callId,
            name: tool.callName,
            arguments: JSON.stringify(args)
          })
        )
        .then(
          (result) => {
            form.dataset.state = result.success ? "completed" : "failed"
            outcome.textContent = result.success ? `called (${callId})` : result.output
          },
          (e: unknown) => {
            form.dataset.state = "failed"
            outcome.textContent = e instanceof Error ? e.message : String(e)
          }
        )
        .finally(() => {
          submit.disabled = false
        })
    })
    byId("tools").append(form)
  }

  client.onNotification((notification) => {
    if (notification.method !== "item/started" && notification.method !== "item/completed") return
    const params = notification.params as { threadId: string; item: ToolCallItem.McpToolCallItem }
    if (params.threadId !== thread) return
    showItem(params.item)
    if (params.item.status === "completed" && params.item.mcpAppResourceUri?.startsWith("ui://")) {
      void renderWidget(params.item.id)
    }
  })
  void client.closed.then((reason) => setStatus(`disconnected: ${reason}`))
  const { widgets } = await client.request("mcp/widget/list", { threadId: thread })
  for (const w of widgets) {
    showItem({
      type: "mcpToolCall",
      id: w.callId,
      server: w.server,
      tool: w.tool,
      arguments: null,
      status: "completed",
      result: null,
      error: null,
      durationMs: null
    })
  }
  setProgress("listing the widget tools")
  const { tools } = await client.request("mcp/widget/tools", { threadId: thread })
  for (const tool of tools) showTool(tool)
  setStatus("ready")
  // each widget box says when its view is initialized (`data-initialized`) or why it failed (`data-error`)
  for (const w of widgets) void renderWidget(w.callId)
}

main().catch((e: unknown) => setStatus(`failed: ${e instanceof Error ? e.message : String(e)}`))
