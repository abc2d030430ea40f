/**
 * The result cache of the resource client (the spec's `ttlMs` / `cacheScope`): decoded results kept
 * for the time the server allowed, bounded in bytes with least-recently-used eviction. Plain
 * synchronous code; the caller passes the time (from `Clock`, so a `TestClock` drives expiry).
 *
 * Every entry carries tags (server, set generation, method, uri) so that it can be dropped by server,
 * by uri, by method or by generation. Keys are opaque strings built with {@link key}.
 */

/** A `ttlMs` longer than this is cut to it (one day). */
export const maxTtlMs = 24 * 60 * 60 * 1000

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

/** A text content at least this long (UTF-16 units) is kept as its UTF-8 bytes by {@link keptRead}. */
export const bytesFormMinLength = 64 * 1024

const keptBytes = new WeakMap<object, Buffer>()

/** The UTF-8 bytes a content of a {@link keptRead} result holds its text in; undefined for any other content. */
export const textBytesOf = (contents: object): Buffer | undefined => keptBytes.get(contents)

/**
 * The form a read kept for windows is cached in: every text content of at least
 * {@link bytesFormMinLength} becomes a copy whose `text` is read from its UTF-8 bytes (the only copy
 * kept: a JavaScript string of non-Latin-1 text takes two bytes a unit beside them). Fields and key
 * order stay as they were, so the JSON text is the same. `size` is what the value holds: its JSON
 * without the kept texts, plus their bytes.
 */
export const keptRead = <A extends { readonly contents: ReadonlyArray<object> }>(
  result: A
): { readonly value: A; readonly size: number } => {
  let kept = 0
  let changed = false
  const contents = result.contents.map((item) => {
    const text = (item as { readonly text?: unknown }).text
    if (typeof text !== "string" || text.length < bytesFormMinLength) return item
    const bytes = Buffer.from(text, "utf8")
    const copy = {}
    for (const [name, value] of Object.entries(item)) {
      Object.defineProperty(
        copy,
        name,
        name === "text"
          ? { enumerable: true, get: () => bytes.toString("utf8") }
          : { enumerable: true, writable: false, value }
      )
    }
    keptBytes.set(copy, bytes)
    kept += bytes.length
    changed = true
    return copy
  })
  if (!changed) return { value: result, size: jsonBytes(result) }
  const value = { ...result, contents } as A
  // the JSON of the rest: the kept texts measured as empty strings
  const rest = {
    ...result,
    contents: result.contents.map((item, i) => (contents[i] === item ? item : { ...item, text: "" }))
  }
  return { value, size: jsonBytes(rest) + kept }
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")

/** The bytes accounted for a value whose held size is known (see {@link keptRead}): that size, its key and the overhead. */
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
