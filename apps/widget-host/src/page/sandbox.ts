/**
 * The sandbox proxy (served on its own origin): tells the host it is ready, loads the widget's HTML into
 * an inner sandboxed iframe with the CSP built from the widget's declared domains, and relays every
 * other message between the host page and the widget unchanged. Only the host page's origin is heard.
 */
import { buildAllowAttribute } from "@modelcontextprotocol/ext-apps/app-bridge"
import * as Csp from "../Csp.js"

/** The inner iframe's sandbox when the host names none (the Apps spec's value). */
const defaultSandbox = "allow-scripts allow-same-origin allow-forms"

const hostOrigin = document.querySelector<HTMLMetaElement>('meta[name="mcp-host-origin"]')?.content ?? ""
let inner: HTMLIFrameElement | undefined

interface ResourceReady {
  readonly html: string
  readonly sandbox?: string
  readonly csp?: Parameters<typeof Csp.build>[0]
  readonly permissions?: Parameters<typeof buildAllowAttribute>[0]
}

const load = (params: ResourceReady) => {
  inner?.remove()
  const frame = document.createElement("iframe")
  frame.setAttribute("sandbox", params.sandbox ?? defaultSandbox)
  const allow = buildAllowAttribute(params.permissions)
  if (allow !== "") frame.setAttribute("allow", allow)
  frame.srcdoc = Csp.inject(params.html, Csp.build(params.csp))
  inner = frame
  document.body.append(frame)
}

window.addEventListener("message", (event: MessageEvent) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return
    const message = event.data as { method?: string; params?: ResourceReady } | null
    if (message?.method === "ui/notifications/sandbox-resource-ready" && message.params !== undefined) {
      load(message.params)
      return
    }
    inner?.contentWindow?.postMessage(event.data, "*")
  } else if (inner !== undefined && event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, hostOrigin)
  }
})

window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin)
