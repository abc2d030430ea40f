/**
 * The bodies of one binding's reads, in this process (what `Bridge.connect` gives its thread as
 * `ToolContext.bodies`, so that `read_mcp_resource`'s `since` can answer with a diff): the text bodies
 * its reads kept, each once by its SHA-256, the oldest dropped past `[changes] thread_max_bytes`
 * (a body over `body_max_bytes` keeps only its digest), and its completed reads' digests, taken from
 * the lifecycle items, the newest {@link maxReads}.
 */
import { createHash } from "node:crypto"
import type { Config } from "@mcp-resources/protocol"
import type { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Effect, Option } from "effect"

/** How many completed reads a binding remembers for `since` (the oldest go first). */
export const maxReads = 1024

/** A binding's bodies, and what records its reads (fed every lifecycle event). */
export interface MemoryBodies {
  readonly bodies: ToolHandlers.Bodies
  readonly observe: (event: LifecycleSink.LifecycleEvent) => void
}

/** Bodies kept in memory within `bounds` (the config's `[changes]`). */
export const memory = (bounds: Config.ChangesConfig): MemoryBodies => {
  const kept = new Map<string, Uint8Array>()
  let keptBytes = 0
  const reads = new Map<string, ToolHandlers.EarlierRead>()
  const limit = Math.min(bounds.bodyMaxBytes, bounds.threadMaxBytes, bounds.storeMaxBytes)
  const keep = (body: Uint8Array): boolean => {
    if (body.byteLength > limit) return false
    const digest = createHash("sha256").update(body).digest("hex")
    const known = kept.get(digest)
    kept.delete(digest)
    kept.set(digest, known ?? Uint8Array.from(body))
    if (known === undefined) keptBytes += body.byteLength
    for (const [oldest, bytes] of kept) {
      if (keptBytes <= bounds.threadMaxBytes) break
      kept.delete(oldest)
      keptBytes -= bytes.byteLength
    }
    return true
  }
  return {
    bodies: {
      keep: (body) => Effect.sync(() => keep(body)),
      get: (digest) => Effect.sync(() => Option.fromNullable(kept.get(digest))),
      earlier: ({ server, uri, callId }) =>
        Effect.sync(() => {
          if (callId !== undefined) return Option.fromNullable(reads.get(callId))
          const all = [...reads.values()]
          for (let i = all.length - 1; i >= 0; i--)
            if (all[i]!.server === server && all[i]!.read.uri === uri) return Option.some(all[i]!)
          return Option.none()
        })
    },
    observe: (event) => {
      const item = event.item
      if (event.phase !== "completed" || item.status !== "completed" || item.resourceRead === undefined) return
      reads.delete(item.id)
      reads.set(item.id, { callId: item.id, server: item.server, read: item.resourceRead })
      for (const oldest of reads.keys()) {
        if (reads.size <= maxReads) break
        reads.delete(oldest)
      }
    }
  }
}
