/**
 * A widget's `ui/message` (MCP Apps): the view asks the host to add a message to the conversation. This
 * page is the host's chat: the message is shown as an entry of the page's conversation, naming the
 * widget it came from, and the request is answered `{}` (the spec returns no content to the view). Text
 * blocks are shown as text; other blocks by their type.
 */

/** The content blocks of a `ui/message` this page shows (text; the others by their type). */
const blockText = (block: unknown): string => {
  const b = block as { type?: unknown; text?: unknown } | null
  if (b?.type === "text" && typeof b.text === "string") return b.text
  return `[${typeof b?.type === "string" ? b.type : "unknown"} content]`
}

/** Adds the widget's message to the page's conversation (`#conversation`); resolves the request's result. */
export const addMessage = (
  list: HTMLElement,
  from: { readonly callId: string; readonly server: string; readonly tool: string },
  params: { readonly role: string; readonly content: ReadonlyArray<unknown> }
): Record<string, never> => {
  const entry = document.createElement("li")
  entry.className = "message"
  entry.dataset.callId = from.callId
  entry.dataset.role = params.role
  const who = document.createElement("span")
  who.className = "from"
  who.textContent = `${params.role} (from the widget of ${from.server} · ${from.tool}): `
  const text = document.createElement("span")
  text.className = "text"
  text.textContent = (Array.isArray(params.content) ? params.content : []).map(blockText).join("\n")
  entry.append(who, text)
  list.append(entry)
  return {}
}
