/**
 * JSON-RPC 2.0 dispatch (app-server-protocol.md section 2): the check order (parse, message shape,
 * initialized, method, params), per-thread ordering, `$/cancelRequest`, graceful shutdown, and the one
 * mapping from failures to JSON-RPC errors. Transports (stdio, WebSocket) feed it framed text.
 */
import { AppServer, Wire } from "@mcp-resources/protocol"
import {
  Cause,
  Context,
  Deferred,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberRef,
  FiberRefs,
  FiberSet,
  Layer,
  List,
  type LogSpan,
  Option,
  Predicate,
  type Schema,
  type Scope
} from "effect"
import { isRecord } from "@mcp-resources/protocol/Records"
import { ServerRequests } from "@mcp-resources/resource-client"
import { type Connection, Connections, type RequestId } from "./Connections.js"
import { type Environment, methods } from "./handlers/index.js"
import { initializeResult } from "./handlers/initialize.js"
import { catchAllDefect, requestContextOf, requestRefs } from "./internal/fastPaths.js"
import { type QueueTicket, ThreadQueues, free, withStartPoint } from "./internal/threadQueue.js"
import { codes, type Method, MethodError, messages, type Prepared, requestIdInFlight } from "./Method.js"
import { type OwnedRequest, ThreadOwners } from "./ThreadOwners.js"

/** The largest accepted message: 8 MiB, not counting the newline. */
export const maxMessageBytes = Wire.maxLineBytes

/** A JSON-RPC error object. */
export interface WireError {
  readonly code: number
  readonly message: string
}

/**
 * A `MethodError`, also one built by another copy of Method.ts: the bundled bins load a clustered
 * start's module from a file of its own (`cluster.cjs`, scripts/bundle.mjs) with its own copy.
 */
const isMethodError = (error: unknown): error is MethodError =>
  error instanceof MethodError ||
  (Predicate.isTagged(error, "MethodError") && typeof (error as { readonly code?: unknown }).code === "number")

/** The one mapping of a failed request to its JSON-RPC error: `MethodError` keeps its code, everything else is `-32603` with its message chain. */
export const toWireError = (cause: Cause.Cause<unknown>): WireError => {
  const failure = Cause.failureOption(cause)
  const error = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
  if (isMethodError(error)) return { code: error.code, message: error.message }
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return { code: codes.internalError, message: error.message }
  }
  return { code: codes.internalError, message: error === undefined ? "internal error" : String(error) }
}

const initializeResultSchema = AppServer.results.initialize as unknown as Schema.Schema<unknown, unknown>

/** One attached connection: the transport hands it each framed message. */
export interface Session {
  /** Handles one message (a stdio line or a WebSocket text frame). */
  readonly receive: (text: string) => Effect.Effect<void>
  /** Answers a message over 8 MiB that was discarded unread. */
  readonly tooLarge: Effect.Effect<void>
}

/** The operations of the dispatcher. */
export interface Service {
  /** Attaches a connection until the scope closes; its unanswered requests are then interrupted. */
  readonly attach: (label: string, write: (text: string) => void) => Effect.Effect<Session, never, Scope.Scope>
  /** Stops taking requests, lets in-flight ones finish for at most 5 s, then fails the rest with `server shutting down`. Idempotent. */
  readonly shutdown: Effect.Effect<void>
  /** The number of threads with a queue (a request of theirs in flight); 0 once every request ended. */
  readonly queuedThreads: Effect.Effect<number>
  /**
   * Runs a request that another instance of a cluster sent to this one, the owner of its thread
   * (ThreadOwners.ts): checked as a client's request is, then run in the thread's queue here as
   * `connection`. Succeeds with the result encoded for the wire; fails with the JSON-RPC error the
   * request ends with.
   */
  readonly runOwned: (method: string, params: unknown, connection: Connection) => Effect.Effect<unknown, WireError>
}

/** The dispatcher tag. Layer: `layer`. */
export class JsonRpcServer extends Context.Tag("@mcp-resources/app-server/JsonRpcServer")<JsonRpcServer, Service>() {}

type StopReason = "cancelled" | "shutdown" | "closed"

interface InFlight {
  readonly fiber: Fiber.RuntimeFiber<void>
  readonly state: { reason: StopReason | undefined; done: boolean }
}

/** The message of an unexpected failure, as the `-32603` answer carries it. */
const defectMessage = (defect: unknown): string => (defect instanceof Error ? defect.message : String(defect))
const isValidId = (u: unknown): u is RequestId => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))
const idKey = (id: RequestId): string => `${typeof id}:${id}`
/** A character other than white space (the set `String.prototype.trim` removes). */
const nonBlank = /\S/
const CancelParams = AppServer.CancelRequestParams

/** Builds the dispatcher over the method table. */
export const make: Effect.Effect<Service, never, Connections | Environment | Scope.Scope> = Effect.suspend(() =>
  makeWith(methods)
)

/** Builds the dispatcher over the given method table (tests use their own handlers). */
export const makeWith = <R>(
  methods: Readonly<Record<string, Method<R>>>
): Effect.Effect<Service, never, Connections | R | Scope.Scope> =>
  Effect.gen(function* () {
    const connections = yield* Connections
    // a clustered app-server's routing of the requests a thread owns (ThreadOwners.ts); none alone
    const owners = Option.getOrUndefined(yield* Effect.serviceOption(ThreadOwners))
    const environment = yield* Effect.context<R>()
    const fibers = yield* FiberSet.make<void>()
    const runFork = yield* FiberSet.runtime(fibers)<R>()
    const queues = new ThreadQueues()
    // The server's codecs: each params and result schema compiled once, for every connection; results
    // are checked through their schemas before they are sent (`encodeResult`, with the fast encoders).
    const codecs = Wire.makeCodecs()
    const everything = new Set<Map<string, InFlight>>()
    let accepting = true
    const stopped = yield* Deferred.make<void>()
    let stopping = false

    /** The body in its place in the thread's queue (`free`: a request ordered on no thread). */
    const inQueue = <A, E>(ticket: QueueTicket, body: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      ticket === free
        ? body
        : ticket.ready.pipe(Effect.zipRight(withStartPoint(ticket, body)), Effect.ensuring(ticket.done))

    const runOwned: Service["runOwned"] = (method, params, connection) =>
      Effect.suspend(() => {
        const definition = Object.hasOwn(methods, method) ? methods[method] : undefined
        if (definition === undefined)
          return Effect.fail({ code: codes.methodNotFound, message: messages.methodNotFound(method) })
        const prepared = definition.prepare(params, codecs)
        if (Either.isLeft(prepared)) return Effect.fail({ code: codes.invalidRequest, message: prepared.left })
        if (!accepting) return Effect.fail({ code: codes.internalError, message: messages.shuttingDown })
        const requestContext = requestContextOf(prepared.right)
        const local = Effect.suspend(() => prepared.right.run({ connection }))
        const body = inQueue(
          queues.enter(prepared.right.threadId, definition.ordering),
          requestContext === undefined ? local : ServerRequests.withContext(local, requestContext)
        )
        return Effect.matchCauseEffect(Effect.withLogSpan(body, method), {
          onSuccess: (value): Effect.Effect<unknown, WireError> => {
            const encoded = codecs.encodeResult(method, definition.result, value)
            return Either.isRight(encoded)
              ? Effect.succeed(encoded.right)
              : Effect.fail({ code: codes.internalError, message: encoded.left })
          },
          onFailure: (cause) =>
            Effect.fail(
              Cause.isInterruptedOnly(cause)
                ? { code: codes.internalError, message: messages.shuttingDown }
                : toWireError(cause)
            )
        }).pipe(Effect.provide(environment))
      })

    const attach = (label: string, write: (text: string) => void) =>
      Effect.gen(function* () {
        const connection = yield* connections.open(label, write)
        const inflight = new Map<string, InFlight>()
        everything.add(inflight)
        let initialized = false
        yield* Effect.addFinalizer(() =>
          Effect.gen(function* () {
            everything.delete(inflight)
            const running = [...inflight.values()]
            for (const entry of running) entry.state.reason = "closed"
            yield* Effect.forEach(running, (entry) => Fiber.interrupt(entry.fiber), { discard: true })
          })
        )
        const fail = (id: RequestId | null, code: number, message: string) =>
          connections.respondError(connection, id, { code, message })

        const cancel = (params: unknown) =>
          Effect.gen(function* () {
            const decoded = codecs.decodeWith(CancelParams, params)
            if (Either.isLeft(decoded)) return
            const entry = inflight.get(idKey(decoded.right.id))
            if (entry === undefined) return
            entry.state.reason = "cancelled"
            yield* Effect.forkDaemon(Fiber.interrupt(entry.fiber))
          })

        /** The end of a request: its response, or the error its failure or interruption calls for. */
        const finish = (
          id: RequestId,
          definition: Method<R>,
          state: InFlight["state"],
          exit: Exit.Exit<unknown, unknown>,
          outerSpans: List.List<LogSpan.LogSpan>
        ) => {
          const method = definition.name
          if (exit._tag === "Success") {
            const encoded = codecs.encodeResult(method, definition.result, exit.value)
            if (Either.isRight(encoded)) return connections.respond(connection, id, encoded.right)
            return Effect.zipRight(
              Effect.logError(encoded.left).pipe(Effect.locally(FiberRef.currentLogSpan, outerSpans)),
              fail(id, codes.internalError, encoded.left)
            )
          }
          if (Cause.isInterruptedOnly(exit.cause)) {
            if (state.reason === "closed") return Effect.void
            return state.reason === "cancelled"
              ? fail(id, codes.requestCancelled, messages.requestCancelled)
              : fail(id, codes.internalError, messages.shuttingDown)
          }
          const error = toWireError(exit.cause)
          const answer = fail(id, error.code, error.message)
          return error.code === codes.internalError
            ? Effect.zipRight(
                Effect.logDebug(`${method} failed`).pipe(
                  Effect.annotateLogs({ error: error.message }),
                  Effect.locally(FiberRef.currentLogSpan, outerSpans)
                ),
                answer
              )
            : answer
        }

        const start = (
          id: RequestId,
          definition: Method<R>,
          prepared: Prepared<R>,
          ticket: QueueTicket,
          owned?: OwnedRequest
        ): void => {
          const method = definition.name
          const requestContext = requestContextOf(prepared)
          const state: InFlight["state"] = { reason: undefined, done: false }
          const key = idKey(id)
          const body = Effect.suspend(() => prepared.run({ connection }))
          // Requests not ordered on a thread (reads among them) take no place in any queue. A request a
          // thread owns, on a cluster, runs in the queue of the thread's owner (ThreadOwners.ts).
          const ordered =
            owned === undefined || owners === undefined
              ? inQueue(ticket, body)
              : owners.run(
                  owned,
                  Effect.suspend(() => inQueue(queues.enter(prepared.threadId, definition.ordering), body)).pipe(
                    Effect.provide(environment)
                  )
                )
          // The answer is sent uninterruptibly once the body ends (`finish` never fails; it logs outside the span).
          const end = (exit: Exit.Exit<unknown, unknown>) => {
            state.done = true
            if (inflight.get(key)?.state === state) inflight.delete(key)
            return finish(id, definition, state, exit, outerSpans)
          }
          const program = Effect.uninterruptibleMask((restore) =>
            Effect.matchCauseEffect(restore(ordered), {
              onFailure: (cause) => end(Exit.failCause(cause)),
              onSuccess: (value) => end(Exit.succeed(value))
            })
          )
          // Forked on the dispatcher's runtime, which holds the environment: nothing to provide per request
          // but an ordered request's start point (above).
          // The body runs in the method's log span and in its MCP request context, both set in the fiber's
          // initial refs in one update (`requestRefs`, a fast path of `Effect.withLogSpan` and
          // `ServerRequests.withContext` around the body).
          let outerSpans = List.empty<LogSpan.LogSpan>()
          const fiber = runFork(program, {
            updateRefs: (refs, fiberId) => {
              outerSpans = FiberRefs.getOrDefault(refs, FiberRef.currentLogSpan)
              return requestRefs(refs, fiberId, method, outerSpans, requestContext)
            }
          })
          if (!state.done) inflight.set(key, { fiber, state })
        }

        const defect = (message: Record<string, unknown>, id: RequestId | null) => (defect: unknown) =>
          Effect.zipRight(
            Effect.logError("unexpected failure while handling a message", Cause.die(defect)),
            Object.hasOwn(message, "id") ? fail(id, codes.internalError, defectMessage(defect)) : Effect.void
          )

        const receive = (text: string): Effect.Effect<void> =>
          Effect.suspend(() => {
            if (!nonBlank.test(text)) return Effect.void
            let message: unknown
            try {
              message = JSON.parse(text)
            } catch {
              return fail(null, codes.parseError, messages.parseError)
            }
            if (!isRecord(message)) return fail(null, codes.invalidRequest, messages.invalidRequest)
            const id = isValidId(message.id) ? message.id : null
            // A bug while checking one message answers that message and never stops the connection.
            let answer: Effect.Effect<void>
            try {
              answer = dispatch(message, id)
            } catch (error) {
              return defect(message, id)(error)
            }
            // a started request answers from its own fiber: nothing more to run here
            return catchAllDefect(answer, defect(message, id))
          })

        const dispatch = (message: Record<string, unknown>, id: RequestId | null): Effect.Effect<void> => {
          const hasId = Object.hasOwn(message, "id")
          const method = message.method
          const params = message.params
          // the client's answer to one of our server-to-client requests (mcpServer/elicitation/request)
          if (method === undefined && hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
            // an answer that came too late (the wait timed out, was cancelled) is dropped quietly
            if (connections.answer(connection, message) || (typeof id === "string" && id.startsWith("s-"))) {
              return Effect.void
            }
          }
          if (
            (message.jsonrpc !== undefined && message.jsonrpc !== "2.0") ||
            typeof method !== "string" ||
            (hasId && id === null) ||
            (params !== undefined && (typeof params !== "object" || params === null))
          ) {
            return fail(id, codes.invalidRequest, messages.invalidRequest)
          }
          if (!hasId || id === null) return method === "$/cancelRequest" ? cancel(params) : Effect.void
          if (!initialized && method !== "initialize") return fail(id, codes.invalidRequest, messages.notInitialized)
          if (method === "initialize") {
            if (initialized) return fail(id, codes.invalidRequest, messages.alreadyInitialized)
            const decoded = codecs.decodeParams("initialize", params)
            if (Either.isLeft(decoded)) return fail(id, codes.invalidRequest, messages.invalidParams(decoded.left))
            const result = codecs.encodeResult(method, initializeResultSchema, initializeResult(decoded.right))
            if (Either.isLeft(result)) return fail(id, codes.internalError, result.left)
            initialized = true
            const { clientInfo, capabilities } = decoded.right
            return Effect.zipRight(
              Effect.logInfo("client initialized").pipe(
                Effect.annotateLogs({ connection: label, client: clientInfo.name }),
                Effect.zipRight(connections.setClient(connection, { clientInfo, capabilities }))
              ),
              connections.respond(connection, id, result.right)
            )
          }
          // A second request with the id of one in flight would take its place in the table (so that
          // `$/cancelRequest` reached only the second) and its answer could not be told apart.
          if (inflight.has(idKey(id))) return fail(id, codes.invalidRequest, requestIdInFlight(id))
          const definition = Object.hasOwn(methods, method) ? methods[method] : undefined
          if (definition === undefined) return fail(id, codes.methodNotFound, messages.methodNotFound(method))
          const prepared = definition.prepare(params, codecs)
          if (Either.isLeft(prepared)) return fail(id, codes.invalidRequest, prepared.left)
          if (!accepting) return fail(id, codes.internalError, messages.shuttingDown)
          const owner = owners === undefined ? undefined : prepared.right.owner
          if (owner !== undefined) {
            const owned = { method: definition.name, params, threadId: owner, connection, result: definition.result }
            start(id, definition, prepared.right, free, owned)
            return Effect.void
          }
          const ticket = queues.enter(prepared.right.threadId, definition.ordering)
          start(id, definition, prepared.right, ticket)
          return Effect.void
        }

        return {
          receive,
          tooLarge: fail(null, codes.invalidRequest, messages.requestTooLarge)
        } satisfies Session
      })

    const shutdown = Effect.gen(function* () {
      if (stopping) return yield* Deferred.await(stopped)
      stopping = true
      accepting = false
      yield* Effect.logInfo("shutting down")
      // Finalizers run uninterruptibly; the wait must be interruptible for the timeout to end it.
      yield* Effect.interruptible(FiberSet.awaitEmpty(fibers)).pipe(Effect.timeoutOption("5 seconds"))
      for (const inflight of everything) {
        for (const entry of inflight.values()) if (entry.state.reason === undefined) entry.state.reason = "shutdown"
      }
      yield* FiberSet.clear(fibers)
      yield* FiberSet.awaitEmpty(fibers)
      yield* Deferred.succeed(stopped, undefined)
    })

    yield* Effect.addFinalizer(() => shutdown)
    return JsonRpcServer.of({ attach, shutdown, queuedThreads: Effect.sync(() => queues.size), runOwned })
  })

/** The dispatcher layer. */
export const layer: Layer.Layer<JsonRpcServer, never, Connections | Environment> = Layer.scoped(JsonRpcServer, make)
