/**
 * The TokenStore contract: one suite, run against every layer (the file and memory layers here; a
 * PostgreSQL layer runs the same suite). What a user can observe: a login saved per server and URL
 * and read back whole, isolation between servers and between URLs, logout, the rotated refresh token
 * replacing the old one, concurrent saves keeping the last, and, where data is stored outside the
 * process, its protection and what happens when it is damaged (a clear error naming where, nothing
 * else lost, no secret quoted). A case that does not apply to a layer is registered as skipped with
 * its reason in its name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, type Scope, TestClock } from "effect"
import { OAuth, TokenStore } from "../src/index.js"

/** One fresh, empty storage per test. */
export interface Backend {
  /** A store over this test's storage; with `shared`, each call opens another store on the same storage. */
  readonly open: () => Layer.Layer<TokenStore.TokenStore>
  /** What the store's errors name for this storage (a file path, a table). */
  readonly location?: string
  /** The storage as stored now, bypassing the store (to see that a failure changed nothing). */
  readonly raw?: Effect.Effect<string>
  /** Ways to damage the stored data, by name; each leaves data that no longer reads as a token store. */
  readonly corruptions?: Readonly<Record<string, Effect.Effect<void>>>
  /** Makes the storage unreadable (not damaged: it cannot be read at all). */
  readonly unreadable?: Effect.Effect<void>
  /** The permission bits of what is stored (a file's mode), when it is a file. */
  readonly fileMode?: Effect.Effect<number>
}

/** What differs between layers, each with the reason a case does not apply when it does not. */
export interface Options {
  /** Two stores opened on one test's storage see each other's saves (another process); else the reason not. */
  readonly shared: true | string
  /** The reason damage and unreadable storage do not apply (nothing is stored outside the process). */
  readonly noStorage?: string
  /** The reason file modes do not apply. */
  readonly noFile?: string
}

/** Builds a store in the current scope. */
export const build = (layer: Layer.Layer<TokenStore.TokenStore>) =>
  Layer.build(layer).pipe(Effect.map(Context.get(TokenStore.TokenStore)))

const docs = { server: "docs", url: "https://docs.example.com/mcp" }
const docsMoved = { server: "docs", url: "https://mcp.docs.example.com/" }
const mail = { server: "mail", url: "https://docs.example.com/mcp" }

/** Every secret of the entries below: no error message may quote one. */
const secrets = ["at-docs-1", "rt-docs-1", "at-docs-2", "rt-docs-2", "at-mail", "rt-mail", "cs-docs", "at-moved"]

/** A whole entry, with every field a login writes. */
const login = (access: string, refresh: string): TokenStore.Entry => ({
  tokens: {
    access_token: access,
    token_type: "Bearer",
    refresh_token: refresh,
    scope: "read write",
    expires_in: 3600,
    issuer: "https://auth.example.com",
    expires_at: 1_767_225_600_000
  },
  client: { client_id: "client-docs", client_secret: "cs-docs", redirect_uris: ["http://127.0.0.1:1455/callback"] },
  discovery: { authorizationServerUrl: "https://auth.example.com", resourceMetadata: { resource: docs.url } },
  redirect_url: "http://127.0.0.1:1455/callback",
  required_scope: "admin"
})

const tokensOnly = (access: string, refresh: string): TokenStore.Entry => ({
  tokens: { access_token: access, token_type: "Bearer", refresh_token: refresh }
})

const failureMessage = <A>(effect: Effect.Effect<A, TokenStore.TokenStoreError>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

const assertNoSecret = (message: string) => {
  for (const secret of secrets) assert.notInclude(message, secret, `the message quotes a secret: ${message}`)
}

/** `it.scoped`, or a skipped case whose name says why it does not apply. */
const scopedCase = (
  name: string,
  skipped: string | undefined,
  body: () => Effect.Effect<void, unknown, Scope.Scope>
) => {
  if (skipped === undefined) return it.scoped(name, body)
  process.stderr.write(`skipped: ${name}: ${skipped}\n`)
  return it.scoped.skip(`${name} (skipped: ${skipped})`, body)
}

/** Registers the contract suite for one TokenStore layer. */
export const tokenStoreSuite = (name: string, backend: Effect.Effect<Backend, never, Scope.Scope>, options: Options) =>
  describe(`TokenStore contract (${name})`, () => {
    const fresh = Effect.gen(function* () {
      const b = yield* backend
      return { backend: b, store: yield* build(b.open()) }
    })

    it.scoped("a saved login is read back whole for its server and URL; an unknown server gives None", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        assert.deepStrictEqual(yield* store.get(docs), Option.none())
        yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
        assert.deepStrictEqual(yield* store.get(docs), Option.some(login("at-docs-1", "rt-docs-1")))
        assert.deepStrictEqual(yield* store.get({ server: "other", url: docs.url }), Option.none())
        // a login in progress through an app-server, and a failed one, are read back as saved too
        const pending: TokenStore.Entry = {
          ...login("at-docs-1", "rt-docs-1"),
          pending_login: {
            authorization_url: "https://auth.example.com/authorize?state=s1",
            expires_at: 1_767_225_900_000
          }
        }
        yield* store.set(docs, pending)
        assert.deepStrictEqual(yield* store.get(docs), Option.some(pending))
        const failed: TokenStore.Entry = { ...login("at-docs-1", "rt-docs-1"), login_failure: "the login was refused" }
        yield* store.set(docs, failed)
        assert.deepStrictEqual(yield* store.get(docs), Option.some(failed))
      })
    )

    it.scoped("servers are apart: two servers on one URL each read their own login", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
        yield* store.set(mail, tokensOnly("at-mail", "rt-mail"))
        assert.deepStrictEqual(yield* store.get(docs), Option.some(login("at-docs-1", "rt-docs-1")))
        assert.deepStrictEqual(yield* store.get(mail), Option.some(tokensOnly("at-mail", "rt-mail")))
      })
    )

    it.scoped("URLs are apart: a server whose URL changed finds nothing, and each URL keeps its own login", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
        assert.deepStrictEqual(yield* store.get(docsMoved), Option.none())
        yield* store.set(docsMoved, tokensOnly("at-moved", "rt-docs-2"))
        assert.deepStrictEqual(yield* store.get(docs), Option.some(login("at-docs-1", "rt-docs-1")))
        assert.deepStrictEqual(yield* store.get(docsMoved), Option.some(tokensOnly("at-moved", "rt-docs-2")))
      })
    )

    it.scoped(
      "logout removes the server's state at every URL and nothing of other servers; a second logout finds none",
      () =>
        Effect.gen(function* () {
          const { store } = yield* fresh
          yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
          yield* store.set(docsMoved, tokensOnly("at-moved", "rt-docs-2"))
          yield* store.set(mail, tokensOnly("at-mail", "rt-mail"))
          const logout = (server: string) =>
            OAuth.logout(server).pipe(Effect.provideService(TokenStore.TokenStore, store))
          assert.isTrue(yield* logout("docs"))
          assert.deepStrictEqual(yield* store.get(docs), Option.none())
          assert.deepStrictEqual(yield* store.get(docsMoved), Option.none())
          assert.deepStrictEqual(yield* store.get(mail), Option.some(tokensOnly("at-mail", "rt-mail")))
          assert.isFalse(yield* logout("docs"))
          assert.isFalse(yield* store.remove("never-logged-in"))
        })
    )

    it.scoped(
      "a refresh replaces the whole entry: the rotated refresh token wins and nothing of the old one stays",
      () =>
        Effect.gen(function* () {
          const { store } = yield* fresh
          yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
          const refreshed = tokensOnly("at-docs-2", "rt-docs-2")
          yield* store.set(docs, refreshed)
          assert.deepStrictEqual(yield* store.get(docs), Option.some(refreshed))
        })
    )

    it.scoped("concurrent saves of one server keep the last; concurrent saves of different servers lose none", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        const rounds = Array.from({ length: 20 }, (_, i) => i)
        yield* Effect.forEach(rounds, (i) => store.set(docs, tokensOnly(`at-${i}`, `rt-${i}`)), {
          concurrency: "unbounded",
          discard: true
        })
        assert.deepStrictEqual(yield* store.get(docs), Option.some(tokensOnly("at-19", "rt-19")))
        yield* Effect.forEach(
          rounds,
          (i) => store.set({ server: `s${i}`, url: docs.url }, tokensOnly(`at-s${i}`, `rt-s${i}`)),
          { concurrency: "unbounded", discard: true }
        )
        for (const i of rounds) {
          assert.deepStrictEqual(
            yield* store.get({ server: `s${i}`, url: docs.url }),
            Option.some(tokensOnly(`at-s${i}`, `rt-s${i}`))
          )
        }
      })
    )

    it.scoped("the refresh lock is exclusive: a second holder waits until the first releases", () =>
      Effect.gen(function* () {
        const { store } = yield* fresh
        // a store without its own lock is locked within the process by the caller; the layers here have one
        assert.isDefined(store.lock, "the layer offers a refresh lock")
        const lock = store.lock!
        const release = yield* lock(docs)
        const second = yield* Effect.fork(lock(docs))
        yield* TestClock.adjust("1 second")
        assert.isTrue(Option.isNone(yield* Fiber.poll(second)), "the second holder is still waiting")
        yield* release
        yield* TestClock.adjust("1 second")
        const releaseSecond = yield* Fiber.join(second)
        yield* releaseSecond
      })
    )

    scopedCase(
      "another store on the same storage sees a save at once and its logout (another process's login)",
      options.shared === true ? undefined : options.shared,
      () =>
        Effect.gen(function* () {
          const { backend: b, store } = yield* fresh
          const other = yield* build(b.open())
          yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
          assert.deepStrictEqual(yield* other.get(docs), Option.some(login("at-docs-1", "rt-docs-1")))
          yield* other.set(docs, tokensOnly("at-docs-2", "rt-docs-2"))
          assert.deepStrictEqual(yield* store.get(docs), Option.some(tokensOnly("at-docs-2", "rt-docs-2")))
          assert.isTrue(yield* other.remove("docs"))
          assert.deepStrictEqual(yield* store.get(docs), Option.none())
        })
    )

    scopedCase(
      "the refresh lock holds across stores on the same storage",
      options.shared === true ? undefined : options.shared,
      () =>
        Effect.gen(function* () {
          const { backend: b, store } = yield* fresh
          const other = yield* build(b.open())
          const release = yield* store.lock!(docs)
          const second = yield* Effect.fork(other.lock!(docs))
          yield* TestClock.adjust("1 second")
          assert.isTrue(Option.isNone(yield* Fiber.poll(second)), "the other store's holder is still waiting")
          yield* release
          yield* TestClock.adjust("1 second")
          yield* Effect.flatten(Fiber.join(second))
        })
    )

    scopedCase("what is stored is readable by its user only (mode 0600)", options.noFile, () =>
      Effect.gen(function* () {
        const { backend: b, store } = yield* fresh
        yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
        assert.strictEqual((yield* b.fileMode!) & 0o777, 0o600)
        // a rewrite keeps it so
        yield* store.set(mail, tokensOnly("at-mail", "rt-mail"))
        assert.strictEqual((yield* b.fileMode!) & 0o777, 0o600)
      })
    )

    scopedCase(
      "damaged storage: every use fails naming where it is and quoting no secret, and nothing stored is overwritten",
      options.noStorage,
      () =>
        Effect.gen(function* () {
          const first = yield* fresh
          const ways = Object.keys(first.backend.corruptions ?? {})
          assert.isAbove(ways.length, 0, "the backend names at least one way to damage its storage")
          for (const [i, how] of ways.entries()) {
            // a fresh storage for each way
            const { backend: b, store } = i === 0 ? first : yield* fresh
            yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
            yield* store.set(mail, tokensOnly("at-mail", "rt-mail"))
            yield* b.corruptions![how]!
            const damaged = yield* b.raw!
            for (const attempt of [
              store.get(docs),
              store.get(mail),
              store.set(docs, tokensOnly("at-docs-2", "rt-docs-2")),
              store.remove("mail")
            ]) {
              const message = yield* failureMessage(attempt as Effect.Effect<unknown, TokenStore.TokenStoreError>)
              assert.include(message, b.location!, `${how}: the message names the storage`)
              assertNoSecret(message)
            }
            assert.strictEqual(yield* b.raw!, damaged, `${how}: the damaged data is left as it was, to be repaired`)
          }
        })
    )

    scopedCase(
      "unreadable storage: reads and saves fail naming where it is and quoting no secret",
      options.noStorage,
      () =>
        Effect.gen(function* () {
          const { backend: b, store } = yield* fresh
          yield* store.set(docs, login("at-docs-1", "rt-docs-1"))
          yield* b.unreadable!
          for (const attempt of [store.get(docs), store.set(mail, tokensOnly("at-mail", "rt-mail"))]) {
            const message = yield* failureMessage(attempt as Effect.Effect<unknown, TokenStore.TokenStoreError>)
            assert.include(message, b.location!)
            assertNoSecret(message)
          }
        })
    )
  })
