/**
 * A widget's `ui/open-link` (MCP Apps): the page opens a link only after the user confirms it. The
 * request shows the URL in the widget's box with "Open" and "Cancel"; "Open" opens it in a new tab
 * (`noopener`, `noreferrer`) and answers `{}`, "Cancel" answers the error `Link opening denied by user`.
 * Only `http:` and `https:` URLs are offered (`Invalid URL` otherwise); one question at a time per widget.
 */

/** A refusal the bridge sends as a JSON-RPC error with the spec's implementation-defined code. */
class LinkRefused extends Error {
  readonly code = -32000
}

/** Asks the user, in `box`, whether to open `url`; resolves `{}` once opened, rejects when refused. */
export const confirmLink = (box: HTMLElement, url: string): Promise<Record<string, never>> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Promise.reject(new LinkRefused("Invalid URL"))
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return Promise.reject(new LinkRefused("Invalid URL"))
  if (box.querySelector(".confirm-link") !== null)
    return Promise.reject(new LinkRefused("Policy violation: a link is already waiting for the user"))
  return new Promise((resolve, reject) => {
    const question = document.createElement("div")
    question.className = "confirm-link"
    question.dataset.url = parsed.href
    const text = document.createElement("span")
    text.textContent = `The widget asks to open ${parsed.href} `
    const open = document.createElement("button")
    open.textContent = "Open"
    open.dataset.action = "open"
    const cancel = document.createElement("button")
    cancel.textContent = "Cancel"
    cancel.dataset.action = "cancel"
    question.append(text, open, cancel)
    box.prepend(question)
    open.addEventListener("click", () => {
      question.remove()
      window.open(parsed.href, "_blank", "noopener,noreferrer")
      resolve({})
    })
    cancel.addEventListener("click", () => {
      question.remove()
      reject(new LinkRefused("Link opening denied by user"))
    })
  })
}
