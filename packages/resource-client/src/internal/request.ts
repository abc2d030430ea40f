/**
 * The request path: one SDK request as a single async step with our timeout, decoded synchronously,
 * failed with the close reason when the transport closes, and cancelled (abort signal) when
 * interrupted. The timeout has one mechanism, {@link timerOn} on the current `Clock` (the SDK's own
 * timer is off); the pagination guard's deadline uses it too.
 */
import { Errors, Messages, Records } from "@mcp-resources/protocol"
import type { Client } from "@modelcontextprotocol/client"
import { Clock, Context, Duration, Effect, Either, FiberId, ParseResult, Runtime, Schema } from "effect"
import * as ServerRequests from "../ServerRequests.js"
import { heldWith } from "./fastPaths.js"
import type { Hold } from "./hold.js"
import { closedError, mapSdkError, redactedError, transportError } from "./failures.js"
import { RequestSignal } from "./requestSignal.js"
import type { Sdk } from "./sdk.js"
import type { HttpTrace } from "./transports.js"
import { restoreResultType } from "./responseGuard.js"
import { type Attributable, Budget, fulfil, maxInputRounds } from "./serverRequests.js"
import { isRecord } from "@mcp-resources/protocol/Records"

/** Milliseconds of a number of seconds (a server entry's timeouts are in seconds). */
export const millis = (seconds: number): number => Math.round(seconds * 1000)

/** The longest delay a timer can have (a longer one would fire at once); also the SDK's timer, which is thereby off. */
export const maxTimerMillis = 2 ** 31 - 1

/** The `sleep` of the live clock (a prototype method, shared by every live clock). */
const liveSleep = Clock.make().sleep

/**
 * The one timer of the request path: runs `task` once `millis` have passed on `clock`, unless the
 * returned cancel runs first. On any clock it is that clock's `sleep` (a TestClock drives it), on a
 * fiber of its own. On the live clock it is the `setTimeout` that the live clock's `sleep` would set,
 * without the fiber: forking and interrupting a timer fiber per request cost 30 to 55 µs of a 1 KiB
 * read (BENCHMARKS.md, "Full run after the request-timer work": scenario 1, tool overhead 1 KiB, and
 * scenario 4, app-server reads, 64 in flight).
 */
export const timerOn = (clock: Clock.Clock, millis: number, task: () => void): (() => void) => {
  if (clock.sleep === liveSleep) {
    // like the live clock: a delay longer than a timer can hold never fires
    if (millis > maxTimerMillis) return noCancel
    const handle = setTimeout(task, millis)
    return () => clearTimeout(handle)
  }
  const fiber = Runtime.runFork(Runtime.defaultRuntime)(
    Effect.zipRight(clock.sleep(Duration.millis(millis)), Effect.sync(task))
  )
  return () => fiber.unsafeInterruptAsFork(FiberId.none)
}

const noCancel = (): void => {}

/**
 * `effect` bounded by `millis` on the current clock through {@link timerOn}: it fails with
 * `onTimeout()` when the time passes first (and is interrupted).
 */
export const timeoutOn = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  millis: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.clockWith((clock) =>
    Effect.raceFirst(
      effect,
      Effect.async<never, E2>((resume) => {
        const cancel = timerOn(clock, millis, () => resume(Effect.fail(onTimeout())))
        return Effect.sync(cancel)
      })
    )
  )

/** Our timeout of a request. */
const timedOut = (method: string, timeoutMillis: number): Errors.TransportError =>
  transportError("timeout", Messages.timedOutAwaiting(method, timeoutMillis))

/** What a request holds while it runs (`hold.ts`'s, so that `fastPaths.ts` reads it without importing this module). */
export type { Hold } from "./hold.js"

/** The local `invalidResult` failure of a decoding mismatch, naming the failing path. */
const invalidResult = (error: ParseResult.ParseError, method: string): Errors.TransportError => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue === undefined || issue.path.length === 0 ? "result" : issue.path.join(".")
  return transportError(
    "invalidResult",
    `invalid ${method} result at ${path}: ${issue?.message ?? "does not match the MCP schema"}`
  )
}

/** Decodes a raw result synchronously to an Either; a mismatch is a local `invalidResult` failure naming the failing path. */
export const decodeResultEither = <A, I>(
  schema: Schema.Schema<A, I>,
  method: string
): ((raw: unknown) => Either.Either<A, Errors.TransportError>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (raw) => {
    const result = decode(raw)
    return Either.isRight(result) ? Either.right(result.right) : Either.left(invalidResult(result.left, method))
  }
}

/** Decodes a raw result (synchronously); a mismatch is a local `invalidResult` failure naming the failing path. */
export const decodeResult = <A, I>(
  schema: Schema.Schema<A, I>,
  method: string
): ((raw: unknown) => Effect.Effect<A, Errors.TransportError>) => {
  const decode = decodeResultEither(schema, method)
  return (raw) => {
    const result = decode(raw)
    return Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(result.left)
  }
}

/** Keeps a raw result as it is. */
export const keepRaw = (raw: unknown): Either.Either<unknown, never> => Either.right(raw)

/**
 * What the wire would deliver of an in-memory value, for the fields that matter to decoding:
 * `undefined`-valued properties are dropped (an SDK McpServer sends `title: undefined`, which exact
 * optional fields refuse) and `undefined` array elements become `null`. Everything else is shared:
 * an object or array is copied only when something inside it changed.
 */
export const asWire = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const wire = item === undefined ? null : asWire(item)
      if (copy === undefined && wire !== item) copy = value.slice(0, i)
      if (copy !== undefined) copy.push(wire)
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  const keys = Object.keys(record)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const item = record[key]
    const wire = item === undefined ? undefined : asWire(item)
    if (copy === undefined && (item === undefined || wire !== item)) {
      copy = {}
      for (let j = 0; j < i; j++) Records.setOwn(copy, keys[j]!, record[keys[j]!])
    }
    if (copy !== undefined && wire !== undefined) Records.setOwn(copy, key, wire)
  }
  return copy ?? value
}

const isInputRequired = (raw: unknown): raw is Readonly<Record<string, unknown>> =>
  isRecord(raw) && raw.resultType === "input_required"

/**
 * `resultType` (2026-07-28): absent or `complete` is a result; `input_required` fails naming the
 * inputs the server asked for (their keys and methods: the client cannot fulfil them yet); any
 * other kind is an invalid result.
 */
const resultKind = (method: string, raw: unknown): Errors.TransportError | undefined => {
  if (!isRecord(raw) || raw.resultType === undefined || raw.resultType === "complete") return undefined
  if (raw.resultType === "input_required") {
    const requests = isRecord(raw.inputRequests) ? raw.inputRequests : {}
    const inputs = Object.keys(requests).map((key) => {
      const request = requests[key]
      return isRecord(request) && typeof request.method === "string" ? `${key} (${request.method})` : key
    })
    return transportError("invalidResult", Messages.inputRequired(method, inputs))
  }
  return transportError("invalidResult", Messages.unsupportedResultType(method, String(raw.resultType)))
}

export type RequestError = Errors.TransportError | Errors.ServerError

/** An `input_required` result that the host's handlers may fulfil (only when the wire has handlers). */
class NeedsInput {
  constructor(readonly raw: Readonly<Record<string, unknown>>) {}
}

type Failure = RequestError | NeedsInput

/** The methods a 2026-07-28 server may answer `input_required` (multi-round-trip requests). */
const roundTripMethods = new Set(["resources/read", "tools/call", "prompts/get"])

/** What the in-flight requests of one connection share: the SDK client and the close state. */
export interface Wire {
  readonly client: Client
  /** Any JSON-RPC result, unchanged (`z.unknown()`): we decode it ourselves so that no field is stripped before. */
  readonly anyResult: Sdk["anyResult"]
  /** In-memory results never went through JSON. */
  readonly memory: boolean
  readonly closedReason: () => string | undefined
  readonly inFlight: InFlightList
  /** The HTTP answers of the connection (HTTP only): a failed request's unreadable answer is named from it. */
  readonly trace: HttpTrace | undefined
  /** The host's handlers and the server's name (connections of a set); threadless connections have none. */
  readonly serverRequests?: { readonly handlers: ServerRequests.Service; readonly server: string } | undefined
  /** Applied to every failure's texts (an HTTP entry's URL secrets, see `redactorOf`). */
  readonly redact?: ((text: string) => string) | undefined
}

/** A request in the in-flight list. */
interface Linked extends Attributable {
  prev: Linked | undefined
  next: Linked | undefined
  linked: boolean
  /** Fails the request with the close reason (cancelling the SDK request). */
  closed(reason: string): void
}

/**
 * The in-flight requests of a connection, failed with the close reason when the transport closes:
 * an intrusive list in insertion order (adding and removing allocate nothing, unlike a Set).
 */
export class InFlightList {
  head: Linked | undefined = undefined
  tail: Linked | undefined = undefined

  add(node: Linked): void {
    node.linked = true
    node.prev = this.tail
    node.next = undefined
    if (this.tail === undefined) this.head = node
    else this.tail.next = node
    this.tail = node
  }

  remove(node: Linked): void {
    if (!node.linked) return
    node.linked = false
    if (node.prev === undefined) this.head = node.next
    else node.prev.next = node.next
    if (node.next === undefined) this.tail = node.prev
    else node.next.prev = node.prev
    node.prev = undefined
    node.next = undefined
  }

  /** The requests in flight, in insertion order. */
  *[Symbol.iterator](): IterableIterator<Linked> {
    for (let node = this.head; node !== undefined; node = node.next) yield node
  }

  /** Empties the list, returning its requests in insertion order. */
  takeAll(): Array<Linked> {
    const all: Array<Linked> = []
    for (let node = this.head; node !== undefined; node = node.next) all.push(node)
    for (const node of all) {
      node.linked = false
      node.prev = undefined
      node.next = undefined
    }
    this.head = undefined
    this.tail = undefined
    return all
  }
}

/**
 * One SDK request in flight: its abort signal and resume in one object rather than a
 * closure each. Settles once: with the result, the SDK's failure, the close reason, the timeout, or
 * a cancellation (which aborts the SDK request).
 */
class InFlight<A> implements Linked {
  prev: Linked | undefined = undefined
  next: Linked | undefined = undefined
  linked = false
  done = false
  signal: RequestSignal | undefined = undefined
  resume: ((effect: Effect.Effect<A, Failure>) => void) | undefined = undefined
  /** Cancels the armed timer (see {@link timerOn}). */
  cancelTimer: (() => void) | undefined = undefined
  startedAt = 0

  constructor(
    readonly wire: Wire,
    readonly method: string,
    readonly timeoutMillis: number,
    readonly decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    readonly errorContext: string | undefined,
    /** The clock that bounds the request (the current one where it runs). */
    readonly clock: Clock.Clock,
    readonly context: ServerRequests.RequestContext | undefined = undefined,
    readonly budget: Budget | undefined = undefined
  ) {}

  failure(error: RequestError): Effect.Effect<never, RequestError> {
    const redacted = this.wire.redact === undefined ? error : redactedError(error, this.wire.redact)
    return Effect.fail(this.errorContext === undefined ? redacted : Errors.withContext(redacted, this.errorContext))
  }

  /** Marks the request settled (false when it already was); `abort` cancels the SDK request. */
  settle(abort: boolean): boolean {
    if (this.done) return false
    this.done = true
    this.wire.inFlight.remove(this)
    if (this.cancelTimer !== undefined) this.cancelTimer()
    this.cancelTimer = undefined
    if (this.budget !== undefined) this.budget.changed = undefined
    if (abort) this.signal?.abort()
    return true
  }

  /** Sends the request, bounded by our timer on the request's clock; the SDK's own timer is off. */
  start(resume: (effect: Effect.Effect<A, Failure>) => void, params: Record<string, unknown> | undefined): void {
    this.resume = resume
    // a transport that closes (crash, oversize message) fails the request with the close reason
    const reason = this.wire.closedReason()
    if (reason !== undefined) {
      this.done = true
      resume(this.failure(closedError(reason)))
      return
    }
    const signal = new RequestSignal()
    this.signal = signal
    this.wire.inFlight.add(this)
    this.startedAt = this.clock.unsafeCurrentTimeMillis()
    if (this.budget !== undefined) this.budget.changed = () => this.arm()
    this.arm()
    // the SDK's own timer off: its longest delay (our timer bounds the request, and pauses with a budget)
    const timeout = maxTimerMillis
    const method = this.method
    this.wire.client
      .request(params === undefined ? { method } : { method, params }, this.wire.anyResult, {
        signal,
        timeout,
        maxTotalTimeout: timeout,
        // `input_required` comes back as a value: we name what the server wanted (resultKind)
        allowInputRequired: true
      })
      .then(
        (raw: unknown) => this.succeeded(raw),
        (error: unknown) => this.failed(error)
      )
  }

  succeeded(sdkResult: unknown): void {
    if (!this.settle(false)) return
    const raw = restoreResultType(sdkResult)
    const incomplete = resultKind(this.method, raw)
    if (incomplete !== undefined) {
      if (this.wire.serverRequests !== undefined && roundTripMethods.has(this.method) && isInputRequired(raw)) {
        this.resume?.(Effect.fail(new NeedsInput(raw)))
        return
      }
      this.resume?.(this.failure(incomplete))
      return
    }
    // an in-memory result never went through JSON: drop `undefined` fields as the wire would
    const decoded = this.decode(this.wire.memory ? asWire(raw) : raw)
    this.resume?.(Either.isRight(decoded) ? Effect.succeed(decoded.right) : this.failure(decoded.left))
  }

  failed(error: unknown): void {
    if (this.settle(false)) {
      this.resume?.(
        this.failure(mapSdkError(error, this.method, this.timeoutMillis, this.wire.closedReason, this.wire.trace))
      )
    }
  }

  /**
   * (Re-)arms the timer for the unpaused time left: none while the budget is paused; a timer that
   * fires re-checks, so that a pause in between is counted.
   */
  arm(): void {
    if (this.cancelTimer !== undefined) this.cancelTimer()
    this.cancelTimer = undefined
    if (this.done || (this.budget !== undefined && this.budget.paused > 0)) return
    const left =
      this.startedAt + this.timeoutMillis + (this.budget?.extraMillis ?? 0) - this.clock.unsafeCurrentTimeMillis()
    if (left <= 0) this.timedOut()
    else this.cancelTimer = timerOn(this.clock, left, () => this.arm())
  }

  timedOut(): void {
    if (this.settle(true)) this.resume?.(Effect.fail(timedOut(this.method, this.timeoutMillis)))
  }

  closed(reason: string): void {
    if (this.settle(true)) this.resume?.(this.failure(closedError(reason)))
  }
}

/** Interrupted (a timeout, the caller) or failed: cancels the SDK request; a settled request is left alone. */
const cancelRequest = <A>(request: InFlight<A>): void => {
  request.settle(true)
}

/** Runs requests on one connection's wire. */
export interface Requester {
  /**
   * One SDK request as a single async step bounded by `timeoutMillis` on the current clock (the
   * same path for the live clock and a TestClock). The result is decoded by `decode`; when
   * `context` is set, every failure is prefixed with what it gives (asked only when one fails).
   * Interrupting it cancels the SDK request.
   * `hold` is taken before and released after, in the same mask and match.
   */
  readonly requestWith: <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    context: (() => string) | undefined,
    hold: Hold | undefined
  ) => Effect.Effect<A, RequestError>
}

/** The requester of a wire. */
export const makeRequester = (wire: Wire): Requester => {
  const attempt = <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    hold: Hold | undefined,
    clock: Clock.Clock,
    context?: ServerRequests.RequestContext,
    budget?: Budget
  ): Effect.Effect<A, Failure> =>
    // a plain async step (cheaper than a canceler, which adds onInterrupt) in the hold's mask and match
    heldWith(
      hold,
      () => new InFlight(wire, method, timeoutMillis, decode, undefined, clock, context, budget),
      (request) => Effect.async<A, Failure>((resume) => request.start(resume, params)),
      cancelRequest
    )
  /** One attempt bounded by `timeoutMillis` on `clock` (paused with `budget` when given), through {@link timerOn}. */
  const boundedOn = <A>(
    clock: Clock.Clock,
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    hold: Hold | undefined,
    context?: ServerRequests.RequestContext,
    budget?: Budget
  ): Effect.Effect<A, Failure> => attempt(method, params, timeoutMillis, decode, hold, clock, context, budget)
  const bounded = <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    hold: Hold | undefined
  ): Effect.Effect<A, Failure> =>
    Effect.clockWith((clock) => boundedOn(clock, method, params, timeoutMillis, decode, hold))
  const withContext = <A>(
    effect: Effect.Effect<A, RequestError>,
    context: (() => string) | undefined
  ): Effect.Effect<A, RequestError> =>
    context === undefined ? effect : Effect.mapError(effect, (error) => Errors.withContext(error, context()))

  const plain: Requester["requestWith"] = (method, params, timeoutMillis, decode, context, hold) =>
    withContext(
      // without handlers no request fails with NeedsInput
      bounded(method, params, timeoutMillis, decode, hold) as Effect.Effect<never, RequestError>,
      context
    )
  const handlers = wire.serverRequests
  if (handlers === undefined) return { requestWith: plain }

  /**
   * With the host's handlers: a request made in a context gets a pausable budget (server requests
   * attributed to it pause it), and an `input_required` answer is fulfilled through the handlers and
   * retried with the original params plus this round's answers, each leg bounded on its own.
   */
  const requestWith = <A>(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMillis: number,
    decode: (raw: unknown) => Either.Either<A, Errors.TransportError>,
    errorContext: (() => string) | undefined,
    hold: Hold | undefined
  ): Effect.Effect<A, RequestError> =>
    Effect.withFiberRuntime<A, RequestError>((fiber) => {
      const context = fiber.getFiberRef(ServerRequests.currentContext)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const leg = (legParams: Record<string, unknown> | undefined): Effect.Effect<A, Failure> =>
        context === undefined
          ? boundedOn(clock, method, legParams, timeoutMillis, decode, hold)
          : boundedOn(clock, method, legParams, timeoutMillis, decode, hold, context, new Budget())
      // only a round-trip method is answered with `input_required` (see InFlight.succeeded)
      if (!roundTripMethods.has(method)) return withContext(leg(params) as Effect.Effect<A, RequestError>, errorContext)
      const rounds = (legParams: Record<string, unknown> | undefined, round: number): Effect.Effect<A, RequestError> =>
        Effect.catchIf(
          leg(legParams),
          (failure): failure is NeedsInput => failure instanceof NeedsInput,
          (needs) =>
            round >= maxInputRounds
              ? Effect.fail(transportError("invalidResult", Messages.inputRequiredRounds(method, maxInputRounds)))
              : Effect.flatMap(fulfil(handlers.handlers, handlers.server, method, needs.raw, context ?? {}), (retry) =>
                  rounds({ ...params, ...retry }, round + 1)
                )
        ) as Effect.Effect<A, RequestError>
      return withContext(rounds(params, 1), errorContext)
    })
  return { requestWith }
}
