import { Effect, Option } from "effect"
import { type BodyMeta, type BodyRef, type Bounds, digestOf, fits, type Service } from "./bodies.js"

interface Body {
  readonly bytes: Uint8Array
  /** The threads holding it. */
  readonly threads: Set<string>
}

/**
 * The memory body store. Maps keep insertion order, and a put moves what it touches to the end: both
 * maps iterate oldest first. Each operation is one synchronous step, hence atomic.
 */
export const make = (bounds: Bounds): Effect.Effect<Service> =>
  Effect.sync(() => {
    const bodies = new Map<string, Body>()
    const threads = new Map<string, Map<string, BodyRef>>()
    let storeBytes = 0

    /** Removes the thread's reference (and the thread's entry once it holds nothing). */
    const forget = (threadId: string, digest: string) => {
      const refs = threads.get(threadId)
      refs?.delete(digest)
      if (refs?.size === 0) threads.delete(threadId)
    }

    const deleteBody = (digest: string) => {
      const body = bodies.get(digest)
      if (body === undefined) return
      bodies.delete(digest)
      storeBytes -= body.bytes.byteLength
      for (const threadId of body.threads) forget(threadId, digest)
    }

    const release = (threadId: string, digest: string) => {
      forget(threadId, digest)
      const body = bodies.get(digest)
      if (body === undefined) return
      body.threads.delete(threadId)
      if (body.threads.size === 0) deleteBody(digest)
    }

    const put = (threadId: string, bytes: Uint8Array, meta: BodyMeta) => {
      const digest = digestOf(bytes)
      const size = bytes.byteLength
      if (!fits(bounds, size)) return { digest, size, kept: false }
      const body = bodies.get(digest) ?? { bytes: bytes.slice(), threads: new Set<string>() }
      if (!bodies.has(digest)) storeBytes += size
      bodies.delete(digest)
      bodies.set(digest, body)
      body.threads.add(threadId)
      const refs = threads.get(threadId) ?? new Map<string, BodyRef>()
      threads.set(threadId, refs)
      refs.delete(digest)
      refs.set(digest, {
        digest,
        size,
        uri: meta.uri,
        ...(meta.mimeType !== undefined ? { mimeType: meta.mimeType } : {})
      })
      let threadBytes = 0
      for (const ref of refs.values()) threadBytes += ref.size
      for (const ref of [...refs.values()]) {
        if (threadBytes <= bounds.threadMaxBytes) break
        threadBytes -= ref.size
        release(threadId, ref.digest)
      }
      for (const oldest of [...bodies.keys()]) {
        if (storeBytes <= bounds.storeMaxBytes) break
        deleteBody(oldest)
      }
      return { digest, size, kept: true }
    }

    return {
      bounds,
      put: Effect.fn("BodyStore.put")((threadId: string, body: Uint8Array, meta: BodyMeta) =>
        Effect.sync(() => put(threadId, body, meta))
      ),
      get: Effect.fn("BodyStore.get")((digest: string) =>
        Effect.sync(() => Option.map(Option.fromNullable(bodies.get(digest)), (body) => body.bytes.slice()))
      ),
      list: Effect.fn("BodyStore.list")((threadId: string) =>
        Effect.sync(() => [...(threads.get(threadId)?.values() ?? [])])
      ),
      release: Effect.fn("BodyStore.release")((threadId: string, digests: ReadonlyArray<string>) =>
        Effect.sync(() => {
          const refs = threads.get(threadId)
          let released = 0
          for (const digest of new Set(digests)) {
            if (refs?.has(digest) !== true) continue
            release(threadId, digest)
            released++
          }
          return released
        })
      ),
      dropThread: Effect.fn("BodyStore.dropThread")((threadId: string) =>
        Effect.sync(() => {
          const refs = [...(threads.get(threadId)?.keys() ?? [])]
          for (const digest of refs) release(threadId, digest)
          return refs.length
        })
      ),
      usage: Effect.fn("BodyStore.usage")(() => Effect.sync(() => ({ bodies: bodies.size, bytes: storeBytes })))
    }
  })
