/**
 * The per-widget sandbox origins: each widget's proxy is served on its own origin,
 * `http://<label>.localhost:<sandbox port>`, with a random label the host page asks for just before it
 * frames the proxy. A label remembers the proxy policy it was issued with and is served once: a proxy
 * that navigates itself (or anything else that asks again) gets nothing, so no document on a widget's
 * origin ever runs under a looser policy than the one issued.
 */
import { randomBytes } from "node:crypto"

/** How many issued labels are remembered (the oldest are forgotten first). */
export const maxLabels = 4096

const labelPattern = /^[a-z0-9]{32}$/

interface Entry {
  readonly policy: string
  served: boolean
}

/** A registry of issued labels. */
export interface SandboxOrigins {
  /** Issues a fresh label whose proxy document gets `policy`. */
  readonly issue: (policy: string) => string
  /** Whether `label` was issued (and not forgotten). */
  readonly known: (label: string) => boolean
  /** The policy of `label`'s proxy document, the first time only; `undefined` after that or when unknown. */
  readonly takePolicy: (label: string) => string | undefined
}

/** A new, empty registry. */
export const make = (): SandboxOrigins => {
  const entries = new Map<string, Entry>()
  return {
    issue: (policy) => {
      // 160 random bits in base 32: a label no widget can guess
      const label = Array.from(randomBytes(32), (b) => (b % 32).toString(32)).join("")
      entries.set(label, { policy, served: false })
      if (entries.size > maxLabels) entries.delete(entries.keys().next().value!)
      return label
    },
    known: (label) => labelPattern.test(label) && entries.has(label),
    takePolicy: (label) => {
      const entry = labelPattern.test(label) ? entries.get(label) : undefined
      if (entry === undefined || entry.served) return undefined
      entry.served = true
      return entry.policy
    }
  }
}
