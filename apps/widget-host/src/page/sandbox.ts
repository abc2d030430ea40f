/**
 * The sandbox proxy (served on its widget's own origin, under the widget's own policy): tells the host
 * it is ready, loads the widget's HTML once into an inner sandboxed iframe with the CSP built from the
 * widget's declared domains, and relays every other message between the host page and the widget
 * unchanged, except the `ui/notifications/sandbox-*` ones, which are between the host and the proxy
 * only. Only the host page's window and origin are heard from above, only the inner frame from below.
 */
import { buildAllowAttribute } from "@modelcontextprotocol/ext-apps/app-bridge"
import * as Csp from "../Csp.js"

/** The inner iframe's sandbox when the host names none (the Apps spec's value). */
const defaultSandbox = "allow-scripts allow-same-origin allow-forms"

const hostOrigin = document.querySelector<HTMLMetaElement>('meta[name="mcp-host-origin"]')?.content ?? ""
let inner: HTMLIFrameElement | undefined
/** The inner document's origin: this proxy's, or `null` under a sandbox without `allow-same-origin`. */
let innerOrigin = window.origin

interface ResourceReady {
  readonly html: string
  readonly sandbox?: string
  readonly csp?: Parameters<typeof Csp.build>[0]
  readonly permissions?: Parameters<typeof buildAllowAttribute>[0]
}

const isSandboxMessage = (data: unknown): boolean => {
  const method = (data as { method?: unknown } | null)?.method
  return typeof method === "string" && method.startsWith("ui/notifications/sandbox-")
}

const load = (params: ResourceReady) => {
  const frame = document.createElement("iframe")
  const sandbox = params.sandbox ?? defaultSandbox
  frame.setAttribute("sandbox", sandbox)
  innerOrigin = sandbox.split(/\s+/).includes("allow-same-origin") ? window.origin : "null"
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
    if (isSandboxMessage(message)) {
      // one widget per proxy: a second resource is never loaded
      if (message?.method === "ui/notifications/sandbox-resource-ready" && message.params !== undefined && !inner)
        load(message.params)
      return
    }
    // the widget's document is `srcdoc`, on this proxy's origin; a frame that navigated away gets nothing
    inner?.contentWindow?.postMessage(event.data, innerOrigin === "null" ? "*" : innerOrigin)
  } else if (inner !== undefined && event.source === inner.contentWindow && event.origin === innerOrigin) {
    if (isSandboxMessage(event.data)) return
    window.parent.postMessage(event.data, hostOrigin)
  }
})

window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin)
