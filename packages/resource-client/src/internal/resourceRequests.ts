/**
 * One request of each resource method on one connection (`resources/list` and
 * `resources/templates/list` pages, `resources/read`), decoded, with its error context, bounded by the
 * server's tool timeout. Used by a connection set and by the threadless read.
 */
import { Errors, Mcp, Messages } from "@mcp-resources/protocol"
import { type Effect, Either } from "effect"
import type { RequestMeta, ServerConnection } from "./types.js"
import type { ServerEntry } from "../ServerEntry.js"
import * as Cache from "./cache.js"
import { type Connection, decodeResultEither, type Hold } from "./connection.js"
import { readResult, resourcesPage, templatesPage } from "./fastPaths.js"
import * as Server from "./server.js"

/**
 * Refuses a result with a `blob` that is not base64: the answer breaks the MCP schema, and the bytes
 * would reach the model or the client as if they were valid.
 */
const checkBlobs = (result: Mcp.ReadResourceResult): Either.Either<Mcp.ReadResourceResult, Errors.TransportError> => {
  const contents = result.contents
  for (let i = 0; i < contents.length; i++) {
    const item = contents[i]!
    if ("blob" in item && !Mcp.isBase64(item.blob)) {
      return Either.left(
        new Errors.TransportError({
          kind: "invalidResult",
          message: `invalid resources/read result at contents.${i}.blob: ${Messages.invalidBlob}`
        })
      )
    }
  }
  return Either.right(result)
}

/** The fast decoder ({@link readResult}), falling back to `slow` (the schema, then the blob check) for anything else. */
const withFastPath =
  (
    slow: (raw: unknown) => Either.Either<Mcp.ReadResourceResult, Errors.TransportError>
  ): ((raw: unknown) => Either.Either<Mcp.ReadResourceResult, Errors.TransportError>) =>
  (raw) => {
    const fast = readResult(raw)
    if (fast !== undefined) return Either.right(fast)
    const decoded = slow(raw)
    return Either.isRight(decoded) ? checkBlobs(decoded.right) : decoded
  }

/**
 * `fast`, falling back to `slow` (the schema) for anything it leaves undecided; the decoded page comes
 * with the raw result beside it (its `ttlMs` and `cacheScope` decide caching).
 */
const withFastList =
  <A>(
    fast: (raw: unknown) => A | undefined,
    slow: (raw: unknown) => Either.Either<A, Errors.TransportError>
  ): ((raw: unknown) => Either.Either<{ readonly value: A; readonly raw: unknown }, Errors.TransportError>) =>
  (raw) => {
    const decoded = fast(raw)
    if (decoded !== undefined) return Either.right({ value: decoded, raw })
    const result = slow(raw)
    return Either.isRight(result) ? Either.right({ value: result.right, raw }) : Either.left(result.left)
  }

const decodeListResources = withFastList(resourcesPage, decodeResultEither(Mcp.ListResourcesResult, "resources/list"))
const decodeListResourceTemplates = withFastList(
  templatesPage,
  decodeResultEither(Mcp.ListResourceTemplatesResult, "resources/templates/list")
)
const decodeReadResourceHinted = withFastPath(decodeResultEither(Mcp.ReadResourceResult, "resources/read"))
/** A read result decoded; unusable caching hints are dropped first (the read is served, not cached). */
const decodeReadResource = (raw: unknown) => decodeReadResourceHinted(Cache.withoutUnusableHints(raw))

/** A paginated list method. */
export type ListMethod = "resources/list" | "resources/templates/list"

/** A decoded page with the raw result beside it (its `ttlMs`, `cacheScope`). */
export interface DecodedPage<A> {
  readonly value: A
  readonly raw: unknown
}

/**
 * One page of a list method on a connection, decoded, with the raw result beside it; bounded by the
 * server's tool timeout, or by `timeoutMillis` when given (what is left of a pagination deadline).
 */
const listPageOn = <A>(
  connection: Connection,
  entry: ServerEntry,
  method: ListMethod,
  cursor: string | undefined,
  decode: (raw: unknown) => Either.Either<DecodedPage<A>, Errors.TransportError>,
  timeoutMillis = Server.millis(entry.toolTimeoutSec)
): Effect.Effect<DecodedPage<A>, Errors.TransportError | Errors.ServerError> =>
  // decoding and the error context inside the request's one async step (a listing runs many pages)
  connection.requestDecoded(method, cursor === undefined ? undefined : { cursor }, timeoutMillis, decode, () =>
    Messages.requestContext[method](entry.name)
  )

/** One `resources/list` page on a connection, with its raw result. */
export const resourcesPageOn = (
  connection: Connection,
  entry: ServerEntry,
  cursor: string | undefined,
  timeoutMillis?: number
) => listPageOn(connection, entry, "resources/list", cursor, decodeListResources, timeoutMillis)

/** One `resources/templates/list` page on a connection, with its raw result. */
export const templatesPageOn = (
  connection: Connection,
  entry: ServerEntry,
  cursor: string | undefined,
  timeoutMillis?: number
) => listPageOn(connection, entry, "resources/templates/list", cursor, decodeListResourceTemplates, timeoutMillis)

/**
 * One `resources/read` on a connection: params `{uri}`, plus `_meta` only when given; `hold` is held
 * while it runs.
 */
export const readResourceOn = (
  connection: Connection,
  entry: ServerEntry,
  uri: string,
  meta?: RequestMeta,
  hold?: Hold
): Effect.Effect<Mcp.ReadResourceResult, Errors.TransportError | Errors.ServerError> =>
  // decoding, the error context and the hold inside the request's one async step
  connection.requestDecoded(
    "resources/read",
    meta === undefined ? { uri } : { uri, _meta: meta },
    Server.millis(entry.toolTimeoutSec),
    decodeReadResource,
    () => Messages.requestContext["resources/read"](entry.name, uri),
    hold
  )

/** A {@link ServerConnection} over one connection. */
export const serverConnection = (connection: Connection, entry: ServerEntry): ServerConnection => ({
  name: entry.name,
  readResource: (uri, meta) => readResourceOn(connection, entry, uri, meta)
})
