/**
 * The result cache of the resource client (the spec's `ttlMs` / `cacheScope`), the one owner of
 * caching: the keys, the scope (`cacheScope` and the authorization partitions), the freshness (which
 * `ttlMs` an answer is kept for), the store (bounded in bytes with least-recently-used eviction) and
 * invalidation (by change notification, by closed connection, by refused cursor and by set
 * generation). A connection set reaches it through {@link SetCache.through}.
 *
 * The store is plain synchronous code; the caller passes the time (from `Clock`, so a `TestClock`
 * drives expiry). Every entry carries tags (server, set generation, method, uri) so that it can be
 * dropped by server, by uri, by method or by generation. Keys are opaque strings built with {@link key}.
 */
import { Effect, Config as EffectConfig, Option } from "effect"
import { createHash } from "node:crypto"
import type { ServerEntry } from "../ServerEntry.js"

/** A `ttlMs` longer than this is cut to it (one day). */
export const maxTtlMs = 24 * 60 * 60 * 1000

/** How long a full template list is kept when the server gives no `ttlMs` (`ConnectionSet.resourceTemplates`). */
export const templateListTtlMs = 60_000

/** Whether the cache is used, and its bound in bytes. */
export interface Options {
  readonly enabled: boolean
  readonly maxBytes: number
}

/** What an entry belongs to, for invalidation. */
export interface Tags {
  readonly server: string
  readonly generation: number
  readonly method: string
  /** The uri of a `resources/read`. */
  readonly uri?: string
  /** The connection the answer came from (see {@link ResultCache.connectionId}). */
  readonly connection?: number
}

/** How an entry is stored. */
export interface PutOptions {
  readonly tags: Tags
  /** Milliseconds from `now`; 0 (or less) stores nothing; cut to {@link maxTtlMs}. */
  readonly ttlMs: number
  /** The entry's size as accounted against the bound (see {@link sizeOf}). */
  readonly bytes: number
  readonly now: number
}

/** Counters of the cache since it was made. */
export interface Stats {
  readonly entries: number
  readonly bytes: number
  readonly hits: number
  readonly misses: number
  readonly evictions: number
}

interface Entry {
  readonly value: unknown
  readonly tags: Tags
  readonly bytes: number
  readonly expiresAt: number
}

/** The parts of a key; `params` is the request's params object (or undefined), `partition` "public" or an authorization hash. */
export interface KeyParts {
  readonly server: string
  readonly generation: number
  /** The connection the answer came from (a number the caller assigns per connection). */
  readonly connection: number
  readonly method: string
  readonly params: string
  readonly partition: string
}

/** The key of a cached answer: every part, separated by a character no part can hold unescaped. */
export const key = (parts: KeyParts): string =>
  `${parts.server}\u0000${parts.generation}\u0000${parts.connection}\u0000${parts.method}\u0000${parts.partition}\u0000${parts.params}`

/** The partition of an answer that is the same for every caller. */
export const publicPartition = "public"

/** `ttlMs` of a raw result: a finite non-negative number, else 0 (not cached); cut to {@link maxTtlMs}. */
export const ttlOf = (raw: unknown): number => {
  if (typeof raw !== "object" || raw === null) return 0
  const ttl = (raw as { readonly ttlMs?: unknown }).ttlMs
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? Math.min(ttl, maxTtlMs) : 0
}

/** A caching hint a client can use: `ttlMs` a finite number >= 0, `cacheScope` a string (absent is usable). */
const usableHints = (result: Readonly<Record<string, unknown>>): boolean => {
  const ttl = Object.hasOwn(result, "ttlMs") ? result.ttlMs : 0
  const scope = Object.hasOwn(result, "cacheScope") ? result.cacheScope : ""
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl >= 0 && typeof scope === "string"
}

/**
 * A raw result whose caching hints are unusable (`ttlMs: -5`, `ttlMs: "1000"`, an object
 * `cacheScope`) without both hints: it is then served as a result without hints (never cached, and
 * no hint in the tool output), not refused. Any other value is returned as it is.
 */
export const withoutUnusableHints = (raw: unknown): unknown => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw
  const result = raw as Readonly<Record<string, unknown>>
  if (usableHints(result)) return raw
  const { ttlMs: _ttl, cacheScope: _scope, ...rest } = result
  return rest
}

/** A result is public only when it says `cacheScope: "public"`; anything else is partitioned by the caller's authorization. */
export const isPublic = (raw: unknown): boolean =>
  typeof raw === "object" && raw !== null && (raw as { readonly cacheScope?: unknown }).cacheScope === "public"

/** The bytes accounted for a value: its JSON text in UTF-8, plus a fixed overhead per entry. */
export const sizeOf = (value: unknown, keyText: string): number =>
  Buffer.byteLength(JSON.stringify(value) ?? "", "utf8") + Buffer.byteLength(keyText, "utf8") + 64

/** The bytes accounted for a value whose held size is known (a caller's form, `ReadOptions.keptForm`): that size, its key and the overhead. */
export const sizeOfKept = (size: number, keyText: string): number => size + Buffer.byteLength(keyText, "utf8") + 64

/** The cache. One per resource client; shared by every set of it. */
export class ResultCache {
  private readonly entries = new Map<string, Entry>()
  /** Keys of each server, for invalidation without a scan of the whole cache. */
  private readonly byServer = new Map<string, Set<string>>()
  private readonly connectionIds = new WeakMap<object, number>()
  private nextConnection = 0
  private totalBytes = 0
  private hits = 0
  private misses = 0
  private evictions = 0
  private options: Options

  constructor(options: Options) {
    this.options = options
  }

  /** Whether lookups are made at all. */
  get enabled(): boolean {
    return this.options.enabled && this.options.maxBytes > 0
  }

  /** Applies new options (a reload): disabling empties the cache, a smaller bound evicts. */
  configure(options: Options): void {
    this.options = options
    if (!this.enabled) this.clear()
    else this.evictTo(options.maxBytes)
  }

  /** A number for a connection object, stable for its life (part of a key). */
  connectionId(connection: object): number {
    let id = this.connectionIds.get(connection)
    if (id === undefined) {
      id = ++this.nextConnection
      this.connectionIds.set(connection, id)
    }
    return id
  }

  /** Some entry of the server is held (else a lookup can be skipped). */
  holdsServer(server: string): boolean {
    return this.byServer.has(server)
  }

  /** The value under `keyText` when it has not expired at `now` (it becomes the most recently used). */
  get(keyText: string, now: number): unknown {
    const entry = this.entries.get(keyText)
    if (entry === undefined) {
      this.misses += 1
      return undefined
    }
    if (entry.expiresAt <= now) {
      this.remove(keyText, entry)
      this.misses += 1
      return undefined
    }
    this.entries.delete(keyText)
    this.entries.set(keyText, entry)
    this.hits += 1
    return entry.value
  }

  /** Stores `value` for `ttlMs`; false when nothing was stored (disabled, no ttl, or larger than the bound). */
  put(keyText: string, value: unknown, options: PutOptions): boolean {
    if (!this.enabled || options.ttlMs <= 0 || options.bytes > this.options.maxBytes) return false
    const previous = this.entries.get(keyText)
    if (previous !== undefined) this.remove(keyText, previous)
    const entry: Entry = {
      value,
      tags: options.tags,
      bytes: options.bytes,
      expiresAt: options.now + Math.min(options.ttlMs, maxTtlMs)
    }
    this.entries.set(keyText, entry)
    this.totalBytes += entry.bytes
    let keys = this.byServer.get(options.tags.server)
    if (keys === undefined) {
      keys = new Set()
      this.byServer.set(options.tags.server, keys)
    }
    keys.add(keyText)
    this.evictTo(this.options.maxBytes)
    return true
  }

  /** Drops every entry of the server whose tags match; returns how many were dropped. */
  invalidate(server: string, matches: (tags: Tags) => boolean = () => true): number {
    const keys = this.byServer.get(server)
    if (keys === undefined) return 0
    let dropped = 0
    for (const keyText of [...keys]) {
      const entry = this.entries.get(keyText)
      if (entry !== undefined && matches(entry.tags)) {
        this.remove(keyText, entry)
        dropped += 1
      }
    }
    return dropped
  }

  /** Drops every entry of the server. */
  invalidateServer(server: string): number {
    return this.invalidate(server)
  }

  /** Drops the server's reads of `uri`. */
  invalidateUri(server: string, uri: string): number {
    return this.invalidate(server, (tags) => tags.uri === uri)
  }

  /** Drops the server's answers to `method` (e.g. every cached page of `resources/list`). */
  invalidateMethod(server: string, method: string): number {
    return this.invalidate(server, (tags) => tags.method === method)
  }

  /**
   * Drops, in one pass over the server's entries, its reads of any of `uris` and its answers to any of
   * `methods` (a batch of change notifications costs one pass, however many uris it names).
   */
  invalidateChanges(server: string, uris: ReadonlySet<string>, methods: ReadonlySet<string>): number {
    if (uris.size === 0 && methods.size === 0) return 0
    return this.invalidate(server, (tags) => methods.has(tags.method) || (tags.uri !== undefined && uris.has(tags.uri)))
  }

  /** Drops the server's answers that came from one connection (it closed). */
  invalidateConnection(server: string, connection: number): number {
    return this.invalidate(server, (tags) => tags.connection === connection)
  }

  /** Drops every entry of a set generation (the set closed). */
  invalidateGeneration(generation: number): number {
    let dropped = 0
    for (const [keyText, entry] of [...this.entries]) {
      if (entry.tags.generation === generation) {
        this.remove(keyText, entry)
        dropped += 1
      }
    }
    return dropped
  }

  /** Drops everything. */
  clear(): void {
    this.entries.clear()
    this.byServer.clear()
    this.totalBytes = 0
  }

  /** The counters. */
  stats(): Stats {
    return {
      entries: this.entries.size,
      bytes: this.totalBytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions
    }
  }

  private remove(keyText: string, entry: Entry): void {
    this.entries.delete(keyText)
    this.totalBytes -= entry.bytes
    const keys = this.byServer.get(entry.tags.server)
    if (keys !== undefined) {
      keys.delete(keyText)
      if (keys.size === 0) this.byServer.delete(entry.tags.server)
    }
  }

  /** Evicts least recently used entries until the total is at most `bound`. */
  private evictTo(bound: number): void {
    for (const [keyText, entry] of this.entries) {
      if (this.totalBytes <= bound) return
      this.remove(keyText, entry)
      this.evictions += 1
    }
  }
}

/** Canonical JSON of a value: object keys sorted, so that two equal values give the same text. */
export const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])])
        )
      : value

/**
 * The authorization context of an entry as a hash: its transport (url, headers, env) and the value of
 * its bearer token variable. The secret itself is never kept; a changed token gives another partition.
 */
export const partitionOf = (entry: ServerEntry): Effect.Effect<string> =>
  Effect.gen(function* () {
    const transport = entry.transport
    if (transport._tag === "memory") return "memory"
    let token = ""
    if (transport._tag === "http" && transport.bearerTokenEnvVar !== undefined) {
      const value = yield* EffectConfig.option(EffectConfig.string(transport.bearerTokenEnvVar)).pipe(
        Effect.orElseSucceed(() => Option.none<string>())
      )
      token = Option.getOrElse(value, () => "")
    }
    return createHash("sha256")
      .update(JSON.stringify(canonical(transport)))
      .update("\u0000")
      .update(token)
      .digest("base64url")
      .slice(0, 22)
  })

const listMethods: ReadonlySet<string> = new Set(["resources/list", "resources/templates/list"])
const noMethods: ReadonlySet<string> = new Set()

/** What changed on a server, as far as its cached answers go (`changes.ts`'s `Batch` is one). */
export interface Changed {
  /** A `list_changed` arrived. */
  readonly listChanged: boolean
  /** Uris of `resources/updated`, each once. */
  readonly uris: ReadonlyArray<string>
  /** More distinct uris arrived than the queue holds: treat every resource as changed. */
  readonly everything: boolean
}

/**
 * Applies a batch of resource notifications of `server` to the cache (tools are not cached): one pass
 * over the server's entries, however many uris the batch names.
 */
export const invalidateBatch = (cache: ResultCache, server: string, batch: Changed): void => {
  if (batch.everything) {
    cache.invalidateServer(server)
    return
  }
  cache.invalidateChanges(server, new Set(batch.uris), batch.listChanged ? listMethods : noMethods)
}

/** Invalid params on a later page: the server no longer knows the cursor (MCP's invalid-cursor error). */
const invalidParams = -32602

/** What a connection set asks the cache for: one request's method, its key text, and how it may be kept. */
export interface Request<A> {
  readonly method: string
  /** The uri of a `resources/read` (its tag: a change notification of the uri drops it). */
  readonly uri?: string
  /** The request's parameters as key text, built only when a key is needed. */
  readonly params: () => string
  /** A later page's cursor: its refusal drops every cached page of the method. */
  readonly cursor?: string
  /** The time to keep an answer whose server gave no `ttlMs` (0 or absent: not kept). */
  readonly defaultTtlMs?: number
  /** The form an answer is kept in and the bytes that form holds (default: the value, measured by {@link sizeOf}). */
  // a method (bivariant): a request with no kept form fits any answer type
  keptForm?(value: A): { readonly value: A; readonly size: number }
}

/** One page of a list method (`cursor` undefined: the first page). */
export const pageRequest = (method: string, cursor: string | undefined): Request<never> =>
  cursor === undefined ? { method, params: () => "" } : { method, params: () => JSON.stringify(cursor), cursor }

/** A server's full template list, tagged like its pages: a list_changed or a closed connection drops it with them. */
export const allTemplatesRequest: Request<never> = {
  method: "resources/templates/list",
  params: () => "*all",
  defaultTtlMs: templateListTtlMs
}

/**
 * A `resources/read`. A read kept for a default time is keyed apart: a read without it never sees
 * its answers; it is kept in `keptForm` when given.
 */
export const readRequest = <A>(
  uri: string,
  meta: Readonly<Record<string, unknown>> | undefined,
  defaultTtlMs: number,
  keptForm?: (value: A) => { readonly value: A; readonly size: number }
): Request<A> =>
  defaultTtlMs > 0
    ? {
        method: "resources/read",
        uri,
        params: () => JSON.stringify(["defaultTtl", uri, meta ?? null]),
        defaultTtlMs,
        ...(keptForm === undefined ? {} : { keptForm })
      }
    : {
        method: "resources/read",
        uri,
        params: () => (meta === undefined ? JSON.stringify(uri) : JSON.stringify([uri, meta]))
      }

/** The cache as one connection set sees it: its generation and each server's authorization partition. */
export class SetCache {
  constructor(
    readonly cache: ResultCache,
    readonly generation: number,
    /** Per server name: a hash of its authorization context (never the secret itself; see {@link partitionOf}). */
    readonly partitions: ReadonlyMap<string, string>
  ) {}

  /** The two keys an answer may be cached under: shared by every caller, or private to this server entry's authorization. */
  private keysOf(server: string, connection: object, method: string, params: string) {
    const parts = {
      server,
      generation: this.generation,
      connection: this.cache.connectionId(connection),
      method,
      params
    }
    return {
      shared: key({ ...parts, partition: publicPartition }),
      own: key({ ...parts, partition: this.partitions.get(server) ?? "none" })
    }
  }

  /**
   * Answers `request` of `server` on `connection` from the cache when a fresh entry exists; else runs
   * `fetch` and stores its answer for the server's `ttlMs` (under the shared key only when the server
   * said `cacheScope: "public"`). `answer` splits what `fetch` gives into the value and the raw result
   * that carries the hints (absent: the value is its own raw). With the cache off, `fetch` runs alone.
   */
  through<A, E>(
    server: string,
    connection: object,
    request: Request<A>,
    fetch: Effect.Effect<A, E>
  ): Effect.Effect<A, E>
  through<B, A, E>(
    server: string,
    connection: object,
    request: Request<A>,
    fetch: Effect.Effect<B, E>,
    answer: (fetched: B) => { readonly value: A; readonly raw: unknown }
  ): Effect.Effect<A, E>
  through<B, A, E>(
    server: string,
    connection: object,
    request: Request<A>,
    fetch: Effect.Effect<B, E>,
    answer?: (fetched: B) => { readonly value: A; readonly raw: unknown }
  ): Effect.Effect<A, E> {
    const cache = this.cache
    const answered = cache.enabled
      ? this.cached(server, connection, request, fetch, answer)
      : answer === undefined
        ? (fetch as unknown as Effect.Effect<A, E>)
        : Effect.map(fetch, (fetched) => answer(fetched).value)
    // only a later page has a cursor to refuse
    if (request.cursor === undefined) return answered
    return Effect.tapError(answered, (error) =>
      Effect.sync(() => {
        const failure = error as { readonly _tag?: unknown; readonly code?: unknown }
        if (failure._tag === "ServerError" && failure.code === invalidParams)
          cache.invalidateMethod(server, request.method)
      })
    )
  }

  private cached<B, A, E>(
    server: string,
    connection: object,
    request: Request<A>,
    fetch: Effect.Effect<B, E>,
    answer: ((fetched: B) => { readonly value: A; readonly raw: unknown }) | undefined
  ): Effect.Effect<A, E> {
    const { cache, generation } = this
    const defaultTtlMs = request.defaultTtlMs ?? 0
    const keptForm = request.keptForm
    const store = Effect.flatMap(fetch, (fetched) => {
      const { value, raw } = answer === undefined ? { value: fetched as unknown as A, raw: fetched } : answer(fetched)
      // a server's `ttlMs` wins, also `0` (keep nothing); the default applies only when it sent none
      const ttlMs =
        defaultTtlMs > 0 && (raw as { readonly ttlMs?: unknown } | null)?.ttlMs === undefined
          ? Math.min(defaultTtlMs, maxTtlMs)
          : ttlOf(raw)
      if (ttlMs <= 0) return Effect.succeed(value)
      return Effect.clockWith((clock) => {
        const keys = this.keysOf(server, connection, request.method, request.params())
        const keyText = isPublic(raw) ? keys.shared : keys.own
        const kept = keptForm?.(value)
        const connectionId = cache.connectionId(connection)
        cache.put(keyText, kept?.value ?? value, {
          tags:
            request.uri === undefined
              ? { server, generation, connection: connectionId, method: request.method }
              : { server, generation, connection: connectionId, method: request.method, uri: request.uri },
          ttlMs,
          bytes: kept === undefined ? sizeOf(value, keyText) : sizeOfKept(kept.size, keyText),
          now: clock.unsafeCurrentTimeMillis()
        })
        // the kept form is answered (also when too large to store), so its bytes are the only copy
        return Effect.succeed(kept?.value ?? value)
      })
    })
    // a server with nothing cached (most servers send no `ttlMs`) skips the lookup
    if (!cache.holdsServer(server)) return store
    return Effect.clockWith((clock) => {
      const keys = this.keysOf(server, connection, request.method, request.params())
      const now = clock.unsafeCurrentTimeMillis()
      const hit = cache.get(keys.own, now) ?? cache.get(keys.shared, now)
      return hit !== undefined ? Effect.succeed(hit as A) : store
    })
  }
}
