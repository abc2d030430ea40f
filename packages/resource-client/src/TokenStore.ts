/**
 * Where the OAuth state of streamable HTTP servers lives: tokens, the registered client and the
 * discovered authorization server, keyed by server name and URL (a server whose URL changed finds
 * nothing, so it never receives the token of what was configured before). `layerFile` keeps them in
 * one JSON file only the user can read (mode 0600, written to a temporary file and renamed over the
 * old one); `layerMemory` keeps them in the process; `fromText` keeps each entry as JSON text in other
 * storage with a lock across processes (the app-server's PostgreSQL vault, thread-store's
 * `TokenVault`, sealed there); a host that links the packages may bring its own.
 * No error of this module quotes what is stored.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Records } from "@mcp-resources/protocol"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** Which server the state belongs to: its name and its URL, both must match. */
export interface Key {
  readonly server: string
  readonly url: string
}

/** The tokens as the authorization server issued them, with the time they expire (ms since the epoch). */
export const Tokens = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number),
  issuer: Schema.optional(Schema.String),
  /** When the access token expires (computed from `expires_in` when it was saved). */
  expires_at: Schema.optional(Schema.Number)
})
export type Tokens = typeof Tokens.Type

/** The OAuth state of one server. `client` and `discovery` are the SDK's records, kept as they are. */
export const Entry = Schema.Struct({
  tokens: Schema.optional(Tokens),
  client: Schema.optional(Records.record(Schema.Unknown)),
  discovery: Schema.optional(Schema.Unknown),
  /** The redirect URI the tokens were obtained with (a registered client is bound to it). */
  redirect_url: Schema.optional(Schema.String),
  /**
   * The scopes the server asked for in its last `403 insufficient_scope` that no token granted yet
   * (space-separated): the next login asks for them too; it ends when a login succeeds.
   */
  required_scope: Schema.optional(Schema.String),
  /**
   * A login in progress through an app-server: the URL its browser step opens and when it expires (ms
   * since the epoch). Another app-server on the same store answers this URL instead of starting a
   * second login; the login's end removes it.
   */
  pending_login: Schema.optional(
    Schema.Struct({
      authorization_url: Schema.String,
      expires_at: Schema.Number,
      /**
       * A login whose redirect an app-server's listener serves (`[oauth] redirect_url`): what its code
       * exchange needs, so that whichever process receives the redirect completes it (OAuth.ts
       * `completeStoredLogin`).
       */
      state: Schema.optional(Schema.String),
      code_verifier: Schema.optional(Schema.String),
      redirect_url: Schema.optional(Schema.String),
      scope: Schema.optional(Schema.String),
      resource_metadata_url: Schema.optional(Schema.String),
      client: Schema.optional(Records.record(Schema.Unknown)),
      discovery: Schema.optional(Schema.Unknown)
    })
  ),
  /** Why the last login through an app-server failed (a message, never a secret); a successful login removes it. */
  login_failure: Schema.optional(Schema.String)
})
export type Entry = typeof Entry.Type

const StoredEntry = Schema.extend(Schema.Struct({ server: Schema.String, url: Schema.String }), Entry)
const StoreFile = Schema.Struct({ version: Schema.Literal(1), entries: Schema.Array(StoredEntry) })
type StoreFile = typeof StoreFile.Type

/** The store could not be read or written (the message names the file, never its content). */
export class TokenStoreError extends Schema.TaggedError<TokenStoreError>()("TokenStoreError", {
  message: Schema.String
}) {}

export interface Service {
  /** The state of the server at this URL, if any. */
  readonly get: (key: Key) => Effect.Effect<Option.Option<Entry>, TokenStoreError>
  /** Replaces the state of the server at this URL. */
  readonly set: (key: Key, entry: Entry) => Effect.Effect<void, TokenStoreError>
  /** Removes the state of the server (every URL it had); true when something was removed. */
  readonly remove: (server: string) => Effect.Effect<boolean, TokenStoreError>
  /**
   * Exclusive use of the stored state across every process sharing the store, for a token refresh (a
   * rotated refresh token works once: two processes refreshing at once would lose one login). Answers
   * the release. Optional: a store without it is locked within the process only.
   */
  readonly lock?: (key: Key) => Effect.Effect<Effect.Effect<void>, TokenStoreError>
}

/** The TokenStore service tag. Layers: `layerFile(path)`, `layerDataDir(dir)`, `layerMemory`; `fromText` over other storage. */
export class TokenStore extends Context.Tag("@mcp-resources/resource-client/TokenStore")<TokenStore, Service>() {}

/** The file name of the default store in a data dir. */
export const fileName = "oauth-tokens.json"

const same = (a: Key, b: Key) => a.server === b.server && a.url === b.url

const strip = ({ server: _server, url: _url, ...entry }: typeof StoredEntry.Type): Entry => entry

const fromEntries = (
  read: () => Effect.Effect<StoreFile, TokenStoreError>,
  write: (file: StoreFile) => Effect.Effect<void, TokenStoreError>,
  lock: Effect.Semaphore,
  exclusive: Service["lock"]
): Service => ({
  ...(exclusive === undefined ? {} : { lock: exclusive }),
  get: (key) =>
    Effect.map(read(), (file) => Option.map(Option.fromNullable(file.entries.find((e) => same(e, key))), strip)),
  set: (key, entry) =>
    lock.withPermits(1)(
      Effect.flatMap(read(), (file) =>
        write({
          version: 1,
          entries: [...file.entries.filter((e) => !same(e, key)), { server: key.server, url: key.url, ...entry }]
        })
      )
    ),
  remove: (server) =>
    lock.withPermits(1)(
      Effect.flatMap(read(), (file) => {
        const kept = file.entries.filter((e) => e.server !== server)
        return kept.length === file.entries.length
          ? Effect.succeed(false)
          : Effect.as(write({ version: 1, entries: kept }), true)
      })
    )
})

/** In the process only (tests, hosts that keep tokens elsewhere). */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(
  TokenStore,
  Effect.gen(function* () {
    let current: StoreFile = { version: 1, entries: [] }
    const lock = yield* Effect.makeSemaphore(1)
    const refreshLock = yield* Effect.makeSemaphore(1)
    return fromEntries(
      () => Effect.sync(() => current),
      (file) =>
        Effect.sync(() => {
          current = file
        }),
      lock,
      () => Effect.as(refreshLock.take(1), Effect.asVoid(refreshLock.release(1)))
    )
  })
)

const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(StoreFile))
const errorText = (error: unknown) =>
  (error as { readonly code?: unknown })?.code !== undefined ? String((error as { code: unknown }).code) : String(error)

/**
 * One JSON file, read on every use (a login of another process is seen at once) and written atomically
 * with mode 0600; its directory is created (mode 0700) when missing.
 */
export const layerFile = (path: string): Layer.Layer<TokenStore> =>
  Layer.effect(
    TokenStore,
    Effect.gen(function* () {
      const lock = yield* Effect.makeSemaphore(1)
      const read = () =>
        Effect.try({
          try: () => (NodeFs.existsSync(path) ? NodeFs.readFileSync(path, "utf8") : undefined),
          catch: (error) => new TokenStoreError({ message: `cannot read the token store ${path}: ${errorText(error)}` })
        }).pipe(
          Effect.flatMap((text) => {
            if (text === undefined) return Effect.succeed<StoreFile>({ version: 1, entries: [] })
            const decoded = decodeFile(text)
            return decoded._tag === "Right"
              ? Effect.succeed(decoded.right)
              : Effect.fail(new TokenStoreError({ message: `the token store ${path} is not a valid token file` }))
          })
        )
      const write = (file: StoreFile) =>
        Effect.try({
          try: () => {
            NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true, mode: 0o700 })
            const temp = `${path}.${process.pid}.${NodeCrypto.randomBytes(6).toString("hex")}.tmp`
            try {
              NodeFs.writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: "wx" })
              NodeFs.renameSync(temp, path)
            } catch (error) {
              NodeFs.rmSync(temp, { force: true })
              throw error
            }
          },
          catch: (error) =>
            new TokenStoreError({ message: `cannot write the token store ${path}: ${errorText(error)}` })
        })
      const refreshLock = yield* Effect.makeSemaphore(1)
      const lockFile = `${path}.lock`
      /** Creates the lock file (`wx`: only one process can), taking over one older than {@link staleLockMillis}. */
      const tryLock = Effect.try({
        try: () => {
          NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true, mode: 0o700 })
          try {
            NodeFs.writeFileSync(lockFile, `${process.pid}\n`, { mode: 0o600, flag: "wx" })
            return true
          } catch (error) {
            if ((error as { code?: unknown }).code !== "EEXIST") throw error
            const age = Date.now() - NodeFs.statSync(lockFile, { throwIfNoEntry: false })!.mtimeMs
            // a lock left by a process that died while refreshing
            if (age > staleLockMillis) NodeFs.rmSync(lockFile, { force: true })
            return false
          }
        },
        catch: (error) => new TokenStoreError({ message: `cannot lock the token store ${path}: ${errorText(error)}` })
      }).pipe(Effect.catchAllDefect(() => Effect.succeed(false)))
      const fileLock = Effect.gen(function* () {
        const deadline = Date.now() + lockWaitMillis
        while (!(yield* tryLock)) {
          if (Date.now() > deadline) {
            return yield* Effect.fail(
              new TokenStoreError({
                message: `the token store ${path} is locked by another process (its lock file ${lockFile} is held)`
              })
            )
          }
          yield* Effect.sleep(lockPollMillis)
        }
        return Effect.sync(() => NodeFs.rmSync(lockFile, { force: true }))
      })
      return fromEntries(read, write, lock, () =>
        Effect.gen(function* () {
          yield* refreshLock.take(1)
          const release = yield* Effect.onError(fileLock, () => refreshLock.release(1))
          return Effect.andThen(release, refreshLock.release(1))
        })
      )
    })
  )

/**
 * Storage that keeps each login as text somewhere else, with a lock across processes (the PostgreSQL
 * token vault of `@mcp-resources/thread-store`, `TokenVault`): what {@link fromText} stores in. Its
 * error messages name {@link TextStorage.location} and quote nothing stored.
 */
export interface TextStorage {
  /** What the errors name (a table). */
  readonly location: string
  readonly read: (key: Key) => Effect.Effect<Option.Option<string>, { readonly message: string }>
  /** Every login of the server, one per URL. */
  readonly list: (
    server: string
  ) => Effect.Effect<ReadonlyArray<{ readonly url: string; readonly text: string }>, { readonly message: string }>
  readonly write: (key: Key, text: string) => Effect.Effect<void, { readonly message: string }>
  readonly remove: (server: string) => Effect.Effect<boolean, { readonly message: string }>
  readonly lock: (key: Key) => Effect.Effect<Effect.Effect<void>, { readonly message: string }>
}

const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(Entry))

/**
 * A store over {@link TextStorage}: each entry as its JSON text. A login that does not read as an
 * entry fails every use of it, a save over it and a logout of its server included (nothing damaged
 * is overwritten, as with the file). The saves and logouts of this store run one at a time, in the
 * order they were asked for (concurrent saves keep the last).
 */
export const fromText = (storage: TextStorage): Effect.Effect<Service> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    const wrap = <A>(effect: Effect.Effect<A, { readonly message: string }>) =>
      Effect.mapError(effect, (error) => new TokenStoreError({ message: error.message }))
    const decode = (server: string, text: string): Effect.Effect<Entry, TokenStoreError> => {
      const decoded = decodeEntry(text)
      return decoded._tag === "Right"
        ? Effect.succeed(decoded.right)
        : Effect.fail(
            new TokenStoreError({
              message: `${storage.location} holds a login of server '${server}' that is not a valid token entry`
            })
          )
    }
    const get = (key: Key) =>
      Effect.flatMap(wrap(storage.read(key)), (text) =>
        Option.isNone(text) ? Effect.succeed(Option.none<Entry>()) : Effect.asSome(decode(key.server, text.value))
      )
    const service: Service = {
      get,
      set: (key, entry) =>
        lock.withPermits(1)(Effect.zipRight(get(key), wrap(storage.write(key, JSON.stringify(entry))))),
      remove: (server) =>
        lock.withPermits(1)(
          Effect.zipRight(
            Effect.flatMap(wrap(storage.list(server)), (rows) =>
              Effect.forEach(rows, (row) => decode(server, row.text))
            ),
            wrap(storage.remove(server))
          )
        ),
      lock: (key) => wrap(storage.lock(key))
    }
    return service
  })

/** How long a refresh waits for another process's lock on the token file. */
export const lockWaitMillis = 15_000
/** A lock file older than this is left by a process that ended while refreshing: it is taken over. */
export const staleLockMillis = 30_000
const lockPollMillis = 20

/** The default store of a data dir: `{dataDir}/oauth-tokens.json`. */
export const layerDataDir = (dataDir: string): Layer.Layer<TokenStore> => layerFile(NodePath.join(dataDir, fileName))
