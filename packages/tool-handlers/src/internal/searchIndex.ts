/**
 * The full-text index of one connection set (MiniSearch: BM25+ ranking, prefix and fuzzy matching)
 * over the names, titles, descriptions and URIs of every server's resources and templates. Plain,
 * synchronous data: the service (ResourceSearch) owns when it is built and refreshed. MiniSearch is
 * loaded at the first index ({@link make}), so that a host that never searches never loads it.
 */
import type { Mcp } from "@mcp-resources/protocol"
import { Effect } from "effect"
import type MiniSearch from "minisearch"

/** One indexed entry: a resource (`uri`) or a template (`uriTemplate`) of a server. */
export interface Entry {
  readonly id: string
  readonly server: string
  readonly kind: "resource" | "template"
  /** The URI, or the template text. */
  readonly key: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

/** A hit: the entry, its score and the query terms it matched. */
export interface Hit {
  readonly entry: Entry
  readonly score: number
  readonly terms: ReadonlyArray<string>
}

/** Separators of names and URIs: white space, punctuation (`/ : . _ - ? & { }`) and symbols (`= + |`). */
const separators = /[\s\p{P}\p{S}]+/u
/** Boundaries inside camelCase words and between letters and digits. */
const camelBoundary = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u

/** The words of a text: split on separators, camelCase words also split into their parts. */
export const tokenize = (text: string): Array<string> => {
  const tokens: Array<string> = []
  for (const word of text.split(separators)) {
    if (word === "") continue
    tokens.push(word)
    const parts = word.split(camelBoundary)
    if (parts.length > 1) for (const part of parts) if (part !== "") tokens.push(part)
  }
  return tokens
}

const fields = ["name", "title", "description", "uri"] as const

const searchOptions = {
  boost: { name: 3, title: 2, uri: 1.5, description: 1 },
  prefix: true,
  fuzzy: 0.2,
  combineWith: "OR"
} as const

/** The id of a server's entry: unique per server, kind and key. */
export const entryId = (server: string, kind: Entry["kind"], key: string): string =>
  `${server}\u0000${kind}\u0000${key}`

/** The entries of one server's lists, without repeats (a server may list an entry twice). */
export const entriesOf = (
  server: string,
  resources: ReadonlyArray<Mcp.Resource>,
  templates: ReadonlyArray<Mcp.ResourceTemplate>
): Array<Entry> => {
  const entries = new Map<string, Entry>()
  const add = (kind: Entry["kind"], item: Mcp.Resource | Mcp.ResourceTemplate, key: string) => {
    const id = entryId(server, kind, key)
    if (entries.has(id)) return
    entries.set(id, {
      id,
      server,
      kind,
      key,
      name: item.name,
      title: item.title,
      description: item.description,
      mimeType: item.mimeType
    })
  }
  for (const resource of resources) add("resource", resource, resource.uri)
  for (const template of templates) add("template", template, template.uriTemplate)
  return [...entries.values()]
}

/** The index: entries by id and the MiniSearch index over them. */
export class SearchIndex {
  private readonly entries = new Map<string, Entry>()
  private readonly byServer = new Map<string, Array<string>>()
  private readonly mini: MiniSearch<Entry & { readonly uri: string }>

  constructor(Mini: typeof MiniSearch) {
    this.mini = new Mini<Entry & { readonly uri: string }>({
      fields: [...fields],
      idField: "id",
      tokenize,
      processTerm: (term) => term.toLowerCase(),
      extractField: (document, field) => {
        if (field === "uri") return document.key
        const value = (document as unknown as Record<string, unknown>)[field]
        return typeof value === "string" ? value : ""
      }
    })
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size
  }

  /** Entries held for one server. */
  sizeOf(server: string): number {
    return this.byServer.get(server)?.length ?? 0
  }

  /** Replaces the entries of `server` by `next` (already without repeats). */
  replace(server: string, next: ReadonlyArray<Entry>): void {
    this.remove(server)
    const ids: Array<string> = []
    for (const entry of next) {
      this.entries.set(entry.id, entry)
      ids.push(entry.id)
    }
    this.mini.addAll(next as ReadonlyArray<Entry & { readonly uri: string }>)
    this.byServer.set(server, ids)
  }

  /** Drops every entry of `server`. */
  remove(server: string): void {
    const ids = this.byServer.get(server)
    if (ids === undefined) return
    for (const id of ids) {
      this.mini.discard(id)
      this.entries.delete(id)
    }
    this.byServer.delete(server)
  }

  /** Every hit for `query` that `keep` accepts, best first (ties: server, then key, bytewise). */
  search(query: string, keep: (entry: Entry) => boolean): Array<Hit> {
    const results = this.mini.search(query, {
      ...searchOptions,
      filter: (result) => {
        const entry = this.entries.get(result.id as string)
        return entry !== undefined && keep(entry)
      }
    })
    const hits: Array<Hit> = []
    for (const result of results) {
      const entry = this.entries.get(result.id as string)
      if (entry !== undefined) hits.push({ entry, score: result.score, terms: result.terms })
    }
    return hits.sort(
      (a, b) => b.score - a.score || compare(a.entry.server, b.entry.server) || compare(a.entry.key, b.entry.key)
    )
  }
}

/** A new, empty index (MiniSearch is imported here, the first time). */
export const make: Effect.Effect<SearchIndex> = Effect.map(
  Effect.promise(() => import("minisearch")),
  (module) => new SearchIndex(module.default)
)

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The longest excerpt of a description. */
export const excerptChars = 160

/**
 * A short excerpt of a description: white space collapsed, at most {@link excerptChars} characters,
 * around the first matched term when it lies further on; `…` marks what was cut.
 */
export const excerpt = (description: string, terms: ReadonlyArray<string>): string => {
  const text = description.replace(/\s+/g, " ").trim()
  if (text.length <= excerptChars) return text
  const lower = text.toLowerCase()
  let at = -1
  for (const term of terms) {
    const found = lower.indexOf(term.toLowerCase())
    if (found >= 0 && (at < 0 || found < at)) at = found
  }
  const start = at < excerptChars - 20 ? 0 : Math.min(at - 40, text.length - (excerptChars - 1))
  const end = Math.min(text.length, start + excerptChars - (start > 0 ? 2 : 1))
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`
}
