/**
 * The skills service (skills.md sections 1, 2, 4 and 5): a per-thread catalog and read cache over the
 * apps server's `mcp/skill` resources, through the `ResourceClient` facade (the latest connection set).
 */
import { Errors, type Mcp, ResourcePolicy } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { Context, Duration, Effect, Fiber, HashMap, Layer, Option, SynchronizedRef } from "effect"
import { byteLength } from "@mcp-resources/protocol/Utf8"
import * as Catalog from "./Catalog.js"
import * as Discovery from "./Discovery.js"
import * as SkillMessages from "./SkillMessages.js"
import { resourceBelongsToPackage } from "./SkillUri.js"

/** The result of `skills/read`: the text of one skill resource; `next_cursor` is always `null`. */
export interface ReadResult {
  readonly resource: string
  readonly contents: string
  readonly next_cursor: null
}

/** Why a read failed; `message` is exactly a message of skills.md section 1 or 4. */
export type ReadFailure = Errors.AccessError | Errors.TransportError | Errors.ServerError

/** The Skills service. */
export interface Service {
  /** The thread's catalog for the latest generation; never fails (failures become warnings). */
  readonly list: (threadId: string) => Effect.Effect<Catalog.Catalog>
  /**
   * Reads one resource of a skill package from the apps server (or the thread's cache). The host's
   * resource rules (`ResourcePolicy.guardRead`, with the thread's deny patterns when given) refuse a
   * denied resource before the cache or any request.
   */
  readonly read: (
    threadId: string,
    pkg: string,
    resource: string,
    threadDeny?: ReadonlyArray<string>
  ) => Effect.Effect<ReadResult, ReadFailure>
  /** Drops the thread's cache. */
  readonly forget: (threadId: string) => Effect.Effect<void>
}

/** The Skills service tag. Layers: {@link layer} (over `ResourceClient`) and {@link layerWithoutClient}. */
export class Skills extends Context.Tag("@mcp-resources/skills/Skills")<Skills, Service>() {}

/** The time a read may take. */
export const readTimeout: Duration.Duration = Duration.seconds(10)

/** The largest text a read returns, in UTF-8 bytes. */
export const maxReadBytes = 1048576

/** The most reads a thread's cache stores. */
export const maxCachedReads = 100

/** The most UTF-8 bytes of contents a thread's cache stores. */
export const maxCachedReadBytes = 8388608

interface ThreadCache {
  readonly generation: string
  readonly catalog: Option.Option<Fiber.Fiber<Catalog.Catalog>>
  readonly reads: HashMap.HashMap<string, ReadResult>
  readonly readBytes: number
}

const emptyCache = (generation: string): ThreadCache => ({
  generation,
  catalog: Option.none(),
  reads: HashMap.empty(),
  readBytes: 0
})

/** The thread's cache for `generation`: the stored one when its generation matches, else a fresh one. */
const cacheFor = (threads: HashMap.HashMap<string, ThreadCache>, threadId: string, generation: string): ThreadCache =>
  Option.getOrElse(
    Option.filter(HashMap.get(threads, threadId), (cache) => cache.generation === generation),
    () => emptyCache(generation)
  )

// URIs never contain white space, so a space separates the two parts unambiguously.
const readKey = (pkg: string, resource: string): string => `${pkg} ${resource}`

const toReadFailure = (error: Errors.ResourceFailure): ReadFailure =>
  error._tag === "ParameterError" ? new Errors.TransportError({ kind: "other", message: error.message }) : error

const mismatch = () => new Errors.AccessError({ message: SkillMessages.resourceMismatch })

/** The first text content whose `uri` is the requested resource, within the read limit. */
const matchingText = (result: Mcp.ReadResourceResult, resource: string): Effect.Effect<string, ReadFailure> => {
  const text = result.contents.find((c) => "text" in c && c.uri === resource)
  if (text === undefined || !("text" in text)) {
    return Effect.fail(
      new Errors.TransportError({ kind: "invalidResult", message: SkillMessages.noMatchingText(resource) })
    )
  }
  if (byteLength(text.text) > maxReadBytes) {
    return Effect.fail(new Errors.TransportError({ kind: "oversize", message: SkillMessages.readTooLarge(resource) }))
  }
  return Effect.succeed(text.text)
}

/** Builds the service over the `ResourceClient`; discoveries run in the layer's scope so that concurrent callers share them. */
export const make = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const scope = yield* Effect.scope
  const state = yield* SynchronizedRef.make(HashMap.empty<string, ThreadCache>())

  // Never fails: a failed discovery is the catalog that carries its message as a warning.
  const discoverCatalog = (server: string): Effect.Effect<Catalog.Catalog> =>
    Effect.suspend(() =>
      client.hasServer(server)
        ? Discovery.discover((cursor) => client.listResources(server, cursor)).pipe(
            Effect.catchAll((error) => Effect.succeed(Catalog.failed(error.message)))
          )
        : Effect.succeed(Catalog.emptyCatalog)
    )

  const list = Effect.fn("Skills.list")(function* (threadId: string) {
    const config = yield* client.config
    if (!config.orchestrator.skillsEnabled) return Catalog.emptyCatalog
    const generation = yield* client.cacheKey
    const discovery = yield* SynchronizedRef.modifyEffect(state, (threads) => {
      const cache = cacheFor(threads, threadId, generation)
      if (Option.isSome(cache.catalog)) return Effect.succeed([cache.catalog.value, threads] as const)
      return Effect.map(
        Effect.forkIn(discoverCatalog(config.apps.serverName), scope),
        (fiber) => [fiber, HashMap.set(threads, threadId, { ...cache, catalog: Option.some(fiber) })] as const
      )
    })
    return yield* Fiber.join(discovery)
  })

  const store = (threadId: string, generation: string, key: string, result: ReadResult) =>
    SynchronizedRef.update(state, (threads) =>
      Option.match(HashMap.get(threads, threadId), {
        onNone: () => threads,
        onSome: (cache) => {
          const readBytes = cache.readBytes + byteLength(result.contents)
          if (cache.generation !== generation || HashMap.size(cache.reads) >= maxCachedReads) return threads
          if (readBytes > maxCachedReadBytes) return threads
          return HashMap.set(threads, threadId, { ...cache, reads: HashMap.set(cache.reads, key, result), readBytes })
        }
      })
    )

  const read = Effect.fn("Skills.read")(function* (
    threadId: string,
    pkg: string,
    resource: string,
    threadDeny?: ReadonlyArray<string>
  ) {
    const config = yield* client.config
    if (!config.orchestrator.skillsEnabled) {
      return yield* new Errors.AccessError({ message: SkillMessages.disabled })
    }
    if (!resourceBelongsToPackage(pkg, resource)) return yield* mismatch()
    yield* ResourcePolicy.guardRead({ config, threadDeny }, config.apps.serverName, resource)
    const generation = yield* client.cacheKey
    const key = readKey(pkg, resource)
    const hit = yield* SynchronizedRef.modify(state, (threads) => {
      const cache = cacheFor(threads, threadId, generation)
      return [HashMap.get(cache.reads, key), HashMap.set(threads, threadId, cache)] as const
    })
    if (Option.isSome(hit)) return hit.value
    const result = yield* client.readResource(config.apps.serverName, resource).pipe(
      Effect.mapError((error) => toReadFailure(Errors.withContext(error, SkillMessages.readFailedContext(resource)))),
      Effect.timeoutFail({
        duration: readTimeout,
        onTimeout: () => new Errors.TransportError({ kind: "timeout", message: SkillMessages.readTimedOut })
      })
    )
    const contents = yield* matchingText(result, resource)
    const readResult: ReadResult = { resource, contents, next_cursor: null }
    // The result names the requested resource by construction, so it is always eligible for the cache.
    yield* store(threadId, generation, key, readResult)
    return readResult
  })

  const forget = Effect.fn("Skills.forget")(function* (threadId: string) {
    yield* SynchronizedRef.update(state, HashMap.remove(threadId))
  })

  return Skills.of({ list, read, forget })
})

/** The service over the `ResourceClient` of the context; the config is read at each call (the latest loaded one). */
export const layer: Layer.Layer<Skills, never, ResourceClient.ResourceClient> = Layer.scoped(Skills, make)

/**
 * The service without a resource client: the catalog is always empty, and a read that passes the
 * containment check fails with `session MCP resource client is not configured`.
 */
export const layerWithoutClient: Layer.Layer<Skills> = Layer.succeed(
  Skills,
  Skills.of({
    list: () => Effect.succeed(Catalog.emptyCatalog),
    read: (_threadId, pkg, resource) =>
      resourceBelongsToPackage(pkg, resource)
        ? Effect.fail(new Errors.TransportError({ kind: "unavailable", message: SkillMessages.clientNotConfigured }))
        : Effect.fail(mismatch()),
    forget: () => Effect.void
  })
)
