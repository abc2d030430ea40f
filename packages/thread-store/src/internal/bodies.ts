/**
 * What the body stores share: the digest, the bounds check, and the shapes of BodyStore.ts (kept here
 * so that the memory and SQL stores do not import the module that loads them).
 */
import { createHash } from "node:crypto"

/** The bounds of a body store, in bytes (`[changes]` of the config). */
export interface Bounds {
  /** The largest body kept; a larger one keeps only its digest (`kept: false`). */
  readonly bodyMaxBytes: number
  /** The bytes of the bodies one thread holds; past it that thread's oldest are released first. */
  readonly threadMaxBytes: number
  /** The bytes of every body stored; past it the oldest bodies are evicted first. */
  readonly storeMaxBytes: number
}

/** What a put was given beside the bytes: where the body was read from. */
export interface BodyMeta {
  readonly uri: string
  readonly mimeType?: string | undefined
}

/** What a put returns: the body's SHA-256 (lowercase hex), its size in bytes, and whether its bytes are kept. */
export interface Put {
  readonly digest: string
  readonly size: number
  readonly kept: boolean
}

/** One body a thread holds. */
export interface BodyRef {
  readonly digest: string
  readonly size: number
  readonly uri: string
  readonly mimeType?: string
}

/** The whole store: how many distinct bodies, and their bytes (each body counted once). */
export interface Usage {
  readonly bodies: number
  readonly bytes: number
}

/** SHA-256 of the bytes, lowercase hex. */
export const digestOf = (body: Uint8Array): string => createHash("sha256").update(body).digest("hex")

/** A body of `size` bytes can be kept: it fits every bound on its own. */
export const fits = (bounds: Bounds, size: number): boolean =>
  size <= bounds.bodyMaxBytes && size <= bounds.threadMaxBytes && size <= bounds.storeMaxBytes
