/**
 * The held `GET /settle.js?id=ID` responses of pages still settling (page/settle.ts): each is answered
 * (an empty script) when its page releases it, or after {@link holdMs} at the latest, so a page that
 * never settles delays its `load` event by that much only. At most {@link maxHeld} are held; a request
 * beyond that, or for an id held already, is answered at once.
 */
import type { ServerResponse } from "node:http"

/** The longest a page's `load` event is held. */
export const holdMs = 30_000

/** How many responses are held at once. */
export const maxHeld = 64

const idPattern = /^[0-9a-f-]{36}$/

/** The held responses of one page server. */
export interface LoadHolds {
  /** Holds `res` until `id` is released (answers at once when it cannot hold it). */
  readonly hold: (id: string, res: ServerResponse) => void
  /** Answers the response held for `id`, if any. */
  readonly release: (id: string) => void
  /** Answers every held response (the server is closing). */
  readonly releaseAll: () => void
}

const answer = (res: ServerResponse) => {
  if (res.writableEnded) return
  res.writeHead(200, {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff"
  })
  res.end("")
}

/** An empty set of held responses. */
export const make = (): LoadHolds => {
  const held = new Map<string, { readonly res: ServerResponse; readonly timer: NodeJS.Timeout }>()
  const release = (id: string) => {
    const entry = held.get(id)
    if (entry === undefined) return
    held.delete(id)
    clearTimeout(entry.timer)
    answer(entry.res)
  }
  return {
    hold: (id, res) => {
      if (!idPattern.test(id) || held.has(id) || held.size >= maxHeld) return answer(res)
      const timer = setTimeout(() => release(id), holdMs)
      timer.unref()
      held.set(id, { res, timer })
      res.once("close", () => {
        const entry = held.get(id)
        if (entry?.res !== res) return
        held.delete(id)
        clearTimeout(entry.timer)
      })
    },
    release,
    releaseAll: () => {
      for (const id of [...held.keys()]) release(id)
    }
  }
}
