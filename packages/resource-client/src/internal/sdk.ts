/**
 * The MCP client SDK (`@modelcontextprotocol/client`, with the zod it builds its schemas on), loaded at
 * the first connection rather than with this package: evaluating it (its schemas are built when its
 * modules run) is most of the cost of importing the resource client, and a host whose config names
 * no server, or a CLI command that opens none, never pays it. Every value of the SDK is reached
 * through this module; the other modules import only its types.
 * The loaded SDK is held here, at module level, on purpose: it is the module cache of a dynamic
 * import (one per process by nature, like a static import's), not state of a service.
 */
import type * as Client from "@modelcontextprotocol/client"
import { Effect } from "effect"
import type { z } from "zod"

/** The loaded SDK, and the one result schema every request is sent with (the result is checked by us). */
export interface Sdk {
  readonly client: typeof Client
  /** `z.unknown()`: the SDK checks nothing of a result; `request.ts` decodes it. */
  readonly anyResult: z.ZodUnknown
}

let loaded: Sdk | undefined
let loading: Promise<Sdk> | undefined

const importSdk = (): Promise<Sdk> => {
  loading ??= Promise.all([import("@modelcontextprotocol/client"), import("zod")]).then(([client, zod]) => {
    loaded = { client, anyResult: zod.z.unknown() }
    return loaded
  })
  return loading
}

/** The SDK, loaded on the first use (one import for every caller, also concurrent ones). */
export const load: Effect.Effect<Sdk> = Effect.suspend(() =>
  loaded !== undefined ? Effect.succeed(loaded) : Effect.promise(importSdk)
)

/**
 * The SDK once a connection has loaded it, else undefined: a value can be one of the SDK's errors
 * only when the SDK is loaded, so the checks of `failures.ts` read this instead of loading it.
 */
export const current = (): Sdk | undefined => loaded
