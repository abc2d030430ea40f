/**
 * Skills over MCP (the skills extension, `io.modelcontextprotocol/skills`), beside the Codex
 * `skill://` catalog of the apps server: discovery with `skills/list` from every ready server that
 * declares the extension, lazy and verified reads of the listed files, and directory reads.
 *
 * - Identity is (server, URI) everywhere: the catalog, the held entries, the read cache, the names
 *   shown (`{server}/{name}`) and the change events. Two servers with a skill of the same name both
 *   appear.
 * - Lazy: listing sends `skills/list` and nothing else; a file is read when it is asked for.
 * - Verified: every file read is checked against the held entry's `size` and `digest` before it is
 *   used. A mismatch, or a file the entry does not list, is a verification failure: the entry is
 *   refreshed once with `skills/get`; when its file set changed, a {@link Changed} event is published
 *   (so that the host drops what it approved) and the read is judged against the refreshed entry.
 * - The limits (512 files, 16 MiB) are checked from the entry before any read.
 * - Origin-scoped: a skill of server A is only ever read from server A.
 * - `allowed-tools` of the frontmatter is shown (`allowedTools`), never applied.
 */
import { createHash } from "node:crypto"
import { Errors, type Mcp, McpSkills, ResourcePolicy } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import {
  Clock,
  Context,
  Duration,
  Effect,
  Either,
  Fiber,
  Layer,
  Option,
  PubSub,
  type Queue,
  Schema,
  type Scope,
  SynchronizedRef
} from "effect"
import * as Discovery from "./Discovery.js"

/** The exact messages of the extension's catalog and reads. */
export const ExtensionMessages = {
  disabled: "the skills extension is disabled by `[skills] extension`",
  timedOut: "skills extension discovery timed out after 10s",
  listFailed: (server: string, chain: string) => `failed to list skills of MCP server '${server}': ${chain}`,
  stopped: (server: string, pages: number, chain: string) =>
    `Skills discovery of MCP server '${server}' stopped after ${pages} ${pages === 1 ? "page" : "pages"}: ${chain}`,
  duplicateCursor: (server: string) => `skills/list of MCP server '${server}' returned a duplicate cursor.`,
  truncated: (server: string) => `Skills discovery of MCP server '${server}' was truncated at 10 pages.`,
  skipped: (server: string, count: number) => `Skipped ${count} malformed skill entries of MCP server '${server}'.`,
  tooManyFiles: (count: number) => `the skill lists ${count} files, more than the limit of 512`,
  tooLarge: (bytes: number) => `the skill's files total ${bytes} bytes, more than the limit of 16777216`,
  notAFile: (server: string, uri: string) => `${uri} is not a file of a skill of MCP server '${server}'`,
  notListed: (server: string, uri: string) =>
    `verification failed: ${uri} is not listed in its skill's manifest on MCP server '${server}'`,
  mismatch: (server: string, uri: string, what: "size" | "digest") =>
    `verification failed: ${uri} of MCP server '${server}' does not match its manifest ${what}`,
  noContents: (server: string, uri: string) => `${uri} of MCP server '${server}' did not return contents for its URI`,
  invalidBlob: (server: string, uri: string) => `${uri} of MCP server '${server}' returned a blob that is not base64`,
  readFailed: (server: string, uri: string) => `failed to read skill file ${uri} of MCP server '${server}'`,
  refreshFailed: (server: string, uri: string) => `failed to refresh skill ${uri} of MCP server '${server}'`,
  notDirectory: (server: string, uri: string) =>
    `${uri} is not a directory of a skill of MCP server '${server}' that it can list`
} as const

/** One skill of the catalog: identity (server, URI), the frontmatter verbatim and the manifest. */
export interface Entry {
  readonly server: string
  /** The URI of the skill's `SKILL.md`. */
  readonly uri: string
  /** The name shown to the model: `{server}/{frontmatter.name}`, or `{server}/{skill path}` when a server lists a name twice. */
  readonly name: string
  readonly frontmatter: McpSkills.Frontmatter
  /** The manifest: every file with `digest` and `size`, or `"dynamic"`. */
  readonly resources: McpSkills.Manifest
  /** `allowed-tools` of the frontmatter, shown and never applied; `null` when absent. */
  readonly allowedTools: unknown
  /** Why the skill cannot be loaded (over a limit); `null` when it can. */
  readonly problem: string | null
}

/** The extension's catalog: the entries (servers by name, each in list order) and warnings. */
export interface Catalog {
  readonly skills: ReadonlyArray<Entry>
  readonly warnings: ReadonlyArray<string>
}

/** The file set of a held skill changed (after a refresh): approvals of (server, uri) are void. */
export interface Changed {
  readonly server: string
  /** The URI of the skill's `SKILL.md`. */
  readonly uri: string
}

/** A file read: text, or base64 `blob` for bytes; `verified` is false for a dynamic skill's file. */
export interface FileRead {
  readonly server: string
  readonly uri: string
  /** The skill the file belongs to (its `SKILL.md` URI). */
  readonly skill: string
  readonly mimeType: string | null
  readonly text?: string
  readonly blob?: string
  readonly verified: boolean
}

/** The children of a skill directory: files of the held manifest and subdirectories. */
export interface DirectoryListing {
  readonly server: string
  readonly uri: string
  readonly resources: ReadonlyArray<{ readonly uri: string; readonly name: string; readonly mimeType: string }>
}

/** Why a read failed. */
export type ReadFailure = Errors.ResourceFailure

/** The service. */
export interface Service {
  /** The catalog of the latest generation (one discovery shared by concurrent callers); never fails. */
  readonly list: Effect.Effect<Catalog>
  /** Reads one listed file of a skill of `server`, verified against the held entry (a file the resource rules deny is refused first). */
  readonly read: (server: string, uri: string) => Effect.Effect<FileRead, ReadFailure>
  /** The direct children of a skill directory (`skill://path` or a subdirectory), within the held manifest. */
  readonly readDirectory: (server: string, uri: string) => Effect.Effect<DirectoryListing, ReadFailure>
  /** Subscribes to the changes of held skills' file sets, from now on, until the scope closes. */
  readonly changes: Effect.Effect<Queue.Dequeue<Changed>, never, Scope.Scope>
}

/** The service tag. Layer: {@link layer} (over `ResourceClient`). */
export class ExtensionSkills extends Context.Tag("@mcp-resources/skills/ExtensionSkills")<ExtensionSkills, Service>() {}

const key = (server: string, uri: string): string => `${server}\u0000${uri}`

const decodeSkill = Schema.decodeUnknownEither(McpSkills.Skill)

/** The skill root of a `SKILL.md` URI (`skill://path`), or none when the URI does not end with `/SKILL.md`. */
const rootOf = (uri: string): string | undefined =>
  uri.endsWith("/SKILL.md") ? uri.slice(0, -"/SKILL.md".length) : undefined

/** The problem of an entry over a limit, counted from the entry alone. */
export const limitProblem = (resources: McpSkills.Manifest): string | null => {
  if (resources === "dynamic") return null
  if (resources.length > McpSkills.maxFiles) return ExtensionMessages.tooManyFiles(resources.length)
  const bytes = resources.reduce((sum, file) => sum + file.size, 0)
  return bytes > McpSkills.maxBytes ? ExtensionMessages.tooLarge(bytes) : null
}

/** A valid entry: decodes, its URI is a `SKILL.md` and the last segment of its path is its name. */
const validEntry = (raw: unknown): McpSkills.Skill | undefined => {
  const decoded = decodeSkill(raw)
  if (Either.isLeft(decoded)) return undefined
  const root = rootOf(decoded.right.uri)
  if (root === undefined || root.split("/").at(-1) !== decoded.right.frontmatter.name) return undefined
  return decoded.right
}

const manifestKey = (resources: McpSkills.Manifest): string =>
  resources === "dynamic"
    ? "dynamic"
    : JSON.stringify(
        [...resources].map((f) => [f.uri, f.digest, f.size]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1))
      )

/** Entries of one server with their shown names: `{server}/{name}`, the skill path when names collide. */
const named = (server: string, skills: ReadonlyArray<McpSkills.Skill>): Array<Entry> => {
  const counts = new Map<string, number>()
  for (const skill of skills) counts.set(skill.frontmatter.name, (counts.get(skill.frontmatter.name) ?? 0) + 1)
  return skills.map((skill) => {
    const path = rootOf(skill.uri)!.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")
    const unique = counts.get(skill.frontmatter.name) === 1
    return {
      server,
      uri: skill.uri,
      name: `${server}/${unique ? skill.frontmatter.name : path}`,
      frontmatter: skill.frontmatter,
      resources: skill.resources,
      allowedTools: skill.frontmatter["allowed-tools"] ?? null,
      problem: limitProblem(skill.resources)
    }
  })
}

const verificationFailure = (message: string) => new Errors.AccessError({ message })

interface State {
  readonly generation: string
  readonly catalog: Option.Option<Fiber.Fiber<Catalog>>
  /** Held entries by (server, SKILL.md URI). */
  readonly held: ReadonlyMap<string, McpSkills.Skill>
  /** Verified reads by (server, file URI) and digest. */
  readonly reads: ReadonlyMap<string, FileRead>
}

const emptyState = (generation: string): State => ({
  generation,
  catalog: Option.none(),
  held: new Map(),
  reads: new Map()
})

/** The most bytes of verified reads the cache keeps. */
export const maxCachedBytes = 8388608

/** Builds the service over the `ResourceClient`; discoveries run in the layer's scope. */
export const make = Effect.gen(function* () {
  const client = yield* ResourceClient.ResourceClient
  const scope = yield* Effect.scope
  const events = yield* PubSub.unbounded<Changed>()
  const state = yield* SynchronizedRef.make(emptyState(""))

  const enabledIn = (config: { readonly skills?: { readonly extension?: boolean } | undefined }) =>
    config.skills?.extension ?? true
  const enabled = Effect.map(client.config, enabledIn)

  /** The state of the current generation (a new generation starts empty). */
  const current = Effect.flatMap(client.cacheKey, (generation) =>
    SynchronizedRef.modify(state, (s) => {
      const next = s.generation === generation ? s : emptyState(generation)
      return [next, next] as const
    })
  )

  const update = (generation: string, f: (s: State) => State) =>
    SynchronizedRef.update(state, (s) => (s.generation === generation ? f(s) : s))

  /** The pages of one server under the shared deadline: entries (valid ones) and warnings. */
  const discoverServer = (server: string, deadlineAt: number) =>
    Effect.gen(function* () {
      const timedOut = () => new Errors.TransportError({ kind: "timeout", message: ExtensionMessages.timedOut })
      const page = (cursor: string | undefined) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          now >= deadlineAt
            ? Effect.fail(timedOut())
            : client
                .listSkills(server, cursor)
                .pipe(Effect.timeoutFail({ duration: Duration.millis(deadlineAt - now), onTimeout: timedOut }))
        )
      const skills: Array<McpSkills.Skill> = []
      const warnings: Array<string> = []
      const seen = new Set<string>()
      let skipped = 0
      let pages = 0
      let cursor: string | undefined
      while (true) {
        const result = yield* Effect.either(page(cursor))
        if (Either.isLeft(result)) {
          warnings.push(
            pages === 0
              ? ExtensionMessages.listFailed(server, result.left.message)
              : ExtensionMessages.stopped(server, pages, result.left.message)
          )
          break
        }
        pages++
        for (const raw of result.right.skills) {
          const skill = validEntry(raw)
          if (skill === undefined) skipped++
          else skills.push(skill)
        }
        const next = result.right.nextCursor
        if (next === undefined) break
        if (seen.has(next)) {
          warnings.push(ExtensionMessages.duplicateCursor(server))
          break
        }
        if (pages >= Discovery.maxPages) {
          warnings.push(ExtensionMessages.truncated(server))
          break
        }
        seen.add(next)
        cursor = next
      }
      if (skipped > 0) warnings.push(ExtensionMessages.skipped(server, skipped))
      return { server, skills, warnings }
    })

  const discover = (generation: string): Effect.Effect<Catalog> =>
    Effect.gen(function* () {
      const servers = yield* client.skillServers
      const deadlineAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(Discovery.deadline)
      const results = yield* Effect.forEach(servers, (s) => discoverServer(s.server, deadlineAt), {
        concurrency: "unbounded"
      })
      const held = new Map<string, McpSkills.Skill>()
      for (const result of results) for (const skill of result.skills) held.set(key(result.server, skill.uri), skill)
      yield* update(generation, (s) => ({ ...s, held: new Map([...held, ...s.held]) }))
      return {
        skills: results.flatMap((result) => named(result.server, result.skills)),
        warnings: results.flatMap((result) => result.warnings)
      }
    })

  const list: Effect.Effect<Catalog> = Effect.gen(function* () {
    if (!(yield* enabled)) return { skills: [], warnings: [] }
    const generation = yield* client.cacheKey
    const fiber = yield* SynchronizedRef.modifyEffect(state, (s0) => {
      const s = s0.generation === generation ? s0 : emptyState(generation)
      if (Option.isSome(s.catalog)) return Effect.succeed([s.catalog.value, s] as const)
      return Effect.map(
        Effect.forkIn(discover(generation), scope),
        (f) => [f, { ...s, catalog: Option.some(f) }] as const
      )
    })
    return yield* Fiber.join(fiber)
  }).pipe(Effect.withSpan("ExtensionSkills.list"))

  /** The held skill of `server` that owns `uri`: listed in its manifest, else the deepest root containing it. */
  const owner = (s: State, server: string, uri: string): McpSkills.Skill | undefined => {
    let best: McpSkills.Skill | undefined
    for (const [k, skill] of s.held) {
      if (!k.startsWith(`${server}\u0000`)) continue
      if (skill.resources !== "dynamic" && skill.resources.some((f) => f.uri === uri)) return skill
      const root = rootOf(skill.uri)!
      if (uri === skill.uri || uri.startsWith(`${root}/`)) {
        if (best === undefined || root.length > rootOf(best.uri)!.length) best = skill
      }
    }
    return best
  }

  /** `skills/get` once; publishes {@link Changed} when the file set differs from the held one. */
  const refresh = (generation: string, server: string, skill: McpSkills.Skill) =>
    Effect.gen(function* () {
      const fresh = yield* client
        .getSkill(server, skill.uri)
        .pipe(Effect.mapError((error) => Errors.withContext(error, ExtensionMessages.refreshFailed(server, skill.uri))))
      if (manifestKey(fresh.resources) !== manifestKey(skill.resources)) {
        yield* update(generation, (s) => ({ ...s, held: new Map(s.held).set(key(server, skill.uri), fresh) }))
        yield* PubSub.publish(events, { server, uri: skill.uri })
      }
      return fresh
    })

  const checkLimits = (skill: McpSkills.Skill) => {
    const problem = limitProblem(skill.resources)
    return problem === null ? Effect.void : Effect.fail(new Errors.AccessError({ message: `${skill.uri}: ${problem}` }))
  }

  /** The raw bytes of the content item for `uri`, with its text or blob. */
  const fetchFile = (server: string, uri: string) =>
    Effect.gen(function* () {
      const result = yield* client
        .readResource(server, uri)
        .pipe(Effect.mapError((error) => Errors.withContext(error, ExtensionMessages.readFailed(server, uri))))
      const item = result.contents.find((c: Mcp.ResourceContents) => c.uri === uri)
      if (item === undefined) {
        return yield* new Errors.TransportError({
          kind: "invalidResult",
          message: ExtensionMessages.noContents(server, uri)
        })
      }
      if ("text" in item) {
        return { item, bytes: Buffer.from(item.text, "utf8"), text: item.text, blob: undefined }
      }
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(item.blob) || item.blob.length % 4 !== 0) {
        return yield* new Errors.TransportError({
          kind: "invalidResult",
          message: ExtensionMessages.invalidBlob(server, uri)
        })
      }
      return { item, bytes: Buffer.from(item.blob, "base64"), text: undefined, blob: item.blob }
    })

  /** Why the bytes do not match the manifest file for `uri` (size first, then digest); none when they match. */
  const mismatchOf = (skill: McpSkills.Skill, uri: string, bytes: Buffer): "size" | "digest" | "unlisted" | null => {
    if (skill.resources === "dynamic") return null
    const file = skill.resources.find((f) => f.uri === uri)
    if (file === undefined) return "unlisted"
    if (bytes.length !== file.size) return "size"
    return `sha256:${createHash("sha256").update(bytes).digest("hex")}` === file.digest ? null : "digest"
  }

  const listed = (skill: McpSkills.Skill, uri: string) =>
    skill.resources === "dynamic" || skill.resources.some((f) => f.uri === uri)

  const digestOf = (skill: McpSkills.Skill, uri: string) =>
    skill.resources === "dynamic" ? "dynamic" : (skill.resources.find((f) => f.uri === uri)?.digest ?? "")

  const read = Effect.fn("ExtensionSkills.read")(function* (server: string, uri: string) {
    const config = yield* client.config
    if (!enabledIn(config)) return yield* new Errors.AccessError({ message: ExtensionMessages.disabled })
    // the host's resource rules (docs/policy.md) before the catalog, the cache or any request
    yield* ResourcePolicy.guardRead({ config }, server, uri)
    yield* list
    let s = yield* current
    const generation = s.generation
    let skill = owner(s, server, uri)
    if (skill === undefined && rootOf(uri) !== undefined) {
      // a skill reached by URI only (not in a partial listing): its entry comes from `skills/get`
      const fetched = yield* Effect.either(client.getSkill(server, uri))
      if (Either.isRight(fetched) && validEntry(fetched.right) !== undefined) {
        yield* update(generation, (st) => ({ ...st, held: new Map(st.held).set(key(server, uri), fetched.right) }))
        skill = fetched.right
      }
    }
    if (skill === undefined) return yield* new Errors.AccessError({ message: ExtensionMessages.notAFile(server, uri) })
    yield* checkLimits(skill)
    if (!listed(skill, uri)) {
      // an unlisted file is a changed skill: refresh once, then judge by the new entry
      skill = yield* refresh(generation, server, skill)
      yield* checkLimits(skill)
      if (!listed(skill, uri)) {
        return yield* verificationFailure(ExtensionMessages.notListed(server, uri))
      }
    }
    s = yield* current
    const cached = s.reads.get(`${key(server, uri)}\u0000${digestOf(skill, uri)}`)
    if (cached !== undefined && skill.resources !== "dynamic") return cached
    const fetched = yield* fetchFile(server, uri)
    if (skill.resources === "dynamic" && fetched.bytes.length > McpSkills.maxBytes) {
      return yield* new Errors.AccessError({
        message: `${skill.uri}: ${ExtensionMessages.tooLarge(fetched.bytes.length)}`
      })
    }
    let problem = mismatchOf(skill, uri, fetched.bytes)
    if (problem !== null) {
      skill = yield* refresh(generation, server, skill)
      yield* checkLimits(skill)
      problem = mismatchOf(skill, uri, fetched.bytes)
      if (problem === "unlisted") return yield* verificationFailure(ExtensionMessages.notListed(server, uri))
      if (problem !== null) return yield* verificationFailure(ExtensionMessages.mismatch(server, uri, problem))
    }
    const result: FileRead = {
      server,
      uri,
      skill: skill.uri,
      mimeType: fetched.item.mimeType ?? null,
      ...(fetched.text !== undefined ? { text: fetched.text } : { blob: fetched.blob }),
      verified: skill.resources !== "dynamic"
    }
    if (skill.resources !== "dynamic") {
      const digest = digestOf(skill, uri)
      yield* update(generation, (st) => {
        const bytes = [...st.reads.values()].reduce((sum, r) => sum + (r.text?.length ?? r.blob?.length ?? 0), 0)
        if (bytes + fetched.bytes.length > maxCachedBytes) return st
        return { ...st, reads: new Map(st.reads).set(`${key(server, uri)}\u0000${digest}`, result) }
      })
    }
    return result
  })

  const childrenFromManifest = (files: ReadonlyArray<McpSkills.SkillFile>, directory: string) => {
    const prefix = `${directory}/`
    const found = new Map<string, { uri: string; name: string; mimeType: string }>()
    for (const file of files) {
      if (!file.uri.startsWith(prefix)) continue
      const rest = file.uri.slice(prefix.length)
      const slash = rest.indexOf("/")
      const name = slash === -1 ? rest : rest.slice(0, slash)
      const child = `${prefix}${name}`
      if (!found.has(child))
        found.set(child, { uri: child, name, mimeType: slash === -1 ? "" : McpSkills.directoryMimeType })
    }
    return found
  }

  const readDirectory = Effect.fn("ExtensionSkills.readDirectory")(function* (server: string, uri: string) {
    if (!(yield* enabled)) return yield* new Errors.AccessError({ message: ExtensionMessages.disabled })
    yield* list
    const s = yield* current
    const directory = uri.endsWith("/") ? uri.slice(0, -1) : uri
    const skill = owner(s, server, `${directory}/`)
    const notDirectory = () => new Errors.AccessError({ message: ExtensionMessages.notDirectory(server, uri) })
    if (skill === undefined) return yield* notDirectory()
    const declared = (yield* client.skillServers).find((d) => d.server === server)
    const manifest = skill.resources === "dynamic" ? undefined : childrenFromManifest(skill.resources, directory)
    if (manifest !== undefined && manifest.size === 0) return yield* notDirectory()
    if (declared?.directoryRead !== true) {
      // the held manifest is complete: it answers alone (a dynamic skill needs the server)
      if (manifest === undefined) return yield* notDirectory()
      return { server, uri: directory, resources: [...manifest.values()] }
    }
    const children: Array<Mcp.Resource> = []
    let cursor: string | undefined
    for (let pages = 0; pages < Discovery.maxPages; pages++) {
      const page = yield* client
        .readResourceDirectory(server, directory, cursor)
        .pipe(Effect.mapError((error) => Errors.withContext(error, ExtensionMessages.notDirectory(server, uri))))
      children.push(...page.resources)
      if (page.nextCursor === undefined) break
      cursor = page.nextCursor
    }
    // a child the held manifest does not list is not surfaced as a file of the skill
    const resources = children
      .filter((child) => manifest === undefined || manifest.has(child.uri))
      .map((child) => ({ uri: child.uri, name: child.name, mimeType: child.mimeType ?? "" }))
    return { server, uri: directory, resources }
  })

  return ExtensionSkills.of({ list, read, readDirectory, changes: PubSub.subscribe(events) })
})

/** The service over the `ResourceClient` of the context; the config is read at each call. */
export const layer: Layer.Layer<ExtensionSkills, never, ResourceClient.ResourceClient> = Layer.scoped(
  ExtensionSkills,
  make
)

/** The service without a resource client: an empty catalog; reads fail naming the missing client. */
export const layerWithoutClient: Layer.Layer<ExtensionSkills> = Layer.succeed(
  ExtensionSkills,
  ExtensionSkills.of({
    list: Effect.succeed({ skills: [], warnings: [] }),
    read: () =>
      Effect.fail(
        new Errors.TransportError({ kind: "unavailable", message: "session MCP resource client is not configured" })
      ),
    readDirectory: () =>
      Effect.fail(
        new Errors.TransportError({ kind: "unavailable", message: "session MCP resource client is not configured" })
      ),
    changes: Effect.flatMap(PubSub.unbounded<Changed>(), PubSub.subscribe)
  })
)
