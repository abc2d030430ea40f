/**
 * The page holds its document's `load` event until it has settled (`ready`, or `failed: …`): it adds a
 * script whose response its server holds (`GET /settle.js?id=ID`) until the page releases it
 * (`POST /settle {id}`) or a bound passes. The page reaches ready only after several WebSocket round
 * trips, which start once its own script runs; a headless browser that takes the page when it has
 * loaded (`--dump-dom`, `--screenshot`, `waitUntil: "load"`, a virtual-time budget, which waits for
 * pending fetches but not for a WebSocket) would otherwise see it still `connecting`.
 */

/** Holds the `load` event; the function releases it (once; later calls do nothing). */
export const holdLoad = (): (() => void) => {
  const id = crypto.randomUUID()
  const script = document.createElement("script")
  script.src = `/settle.js?id=${id}`
  document.head.append(script)
  let released = false
  return () => {
    if (released) return
    released = true
    void fetch("/settle", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id })
    }).catch(() => undefined)
  }
}
