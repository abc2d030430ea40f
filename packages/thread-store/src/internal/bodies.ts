/**
 * What the body stores share: the digest, the bounds check, and the shapes of BodyStore.ts (kept here
 * so that the memory and SQL stores do not import the module that loads them).
 */
import type { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type { BodyStoreError } from "./error.js"

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

/** The body-store operations. */
export interface Service {
  /** The bounds this store keeps. */
  readonly bounds: Bounds
  /**
   * Stores the body for the thread (once per distinct bytes, whichever threads put them) and returns
   * its digest, size and whether its bytes are kept; evicts what the bounds require, oldest first.
   */
  readonly put: (threadId: string, body: Uint8Array, meta: BodyMeta) => Effect.Effect<Put, BodyStoreError>
  /** The bytes of a kept body, or `None` (never kept, evicted, or released by every thread). */
  readonly get: (digest: string) => Effect.Effect<Option.Option<Uint8Array>, BodyStoreError>
  /** The bodies the thread holds, oldest first. */
  readonly list: (threadId: string) => Effect.Effect<ReadonlyArray<BodyRef>, BodyStoreError>
  /**
   * Releases the thread's references to these bodies (the reads a rollback removed); returns how many
   * it held. Bodies no thread holds are deleted.
   */
  readonly release: (threadId: string, digests: ReadonlyArray<string>) => Effect.Effect<number, BodyStoreError>
  /** Releases every body the thread holds (rollback, delete); returns how many. Bodies no thread holds are deleted. */
  readonly dropThread: (threadId: string) => Effect.Effect<number, BodyStoreError>
  /** The distinct bodies stored and their bytes. */
  readonly usage: () => Effect.Effect<Usage, BodyStoreError>
}
