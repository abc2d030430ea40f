/**
 * The app-server's fast paths, all of them: each does exactly what the plain version named in its
 * comment does (`test/fastPaths.test.ts` holds it to that) in fewer runtime steps, and names the
 * BENCHMARKS.md row that measured the gain. Where the bench shows no gain, the plain version is used
 * instead and the fast path is removed from here. None of them shows in a public type.
 */
import type { AppServer } from "@mcp-resources/protocol"
import { ServerRequests } from "@mcp-resources/resource-client"
import {
  Clock,
  Context,
  DefaultServices,
  Effect,
  Either,
  type FiberId,
  FiberRef,
  FiberRefs,
  List,
  LogSpan
} from "effect"
import { type Definition, type Method, messages, method, type Prepared } from "../Method.js"

/** Where a prepared request of {@link methodInContext} keeps the context of its MCP requests. */
const requestContextKey: unique symbol = Symbol("@mcp-resources/app-server/requestContext")

/** A prepared request that may name the MCP request context of its whole body. */
interface InContext<R> extends Prepared<R> {
  readonly [requestContextKey]?: ServerRequests.RequestContext | undefined
}

/**
 * A method whose whole body makes its MCP requests in the context `requestContext(params)` gives
 * (none where it gives undefined): a server request they cause is attributed to it. The plain version
 * is `method(name, {...definition, run: (params, context) => ServerRequests.withContext(definition.run(params, context), requestContext(params))})`,
 * an `Effect.locally` that saves and restores the fiber's refs around the body on every request;
 * here the dispatcher sets the context in the request fiber's first refs instead, in the same update
 * as its log span ({@link requestContextOf}, {@link requestRefs}).
 * BENCHMARKS.md, "Full run with the v2 baseline for throughput", "A plain read on a thread no longer
 * saves and restores the request fiber's refs" (row "4. app-server throughput vs raw v2 SDK client";
 * about 72 µs of CPU per read before, 63 µs after).
 */
export const methodInContext = <M extends AppServer.Method, R>(
  name: M,
  requestContext: (params: AppServer.Params<M>) => ServerRequests.RequestContext | undefined,
  definition: Definition<M, R>
): Method<R> => {
  const plain = method(name, definition)
  return {
    ...plain,
    prepare: (params, codecs) =>
      Either.map(
        Either.mapLeft(codecs.decodeParams(name, params), messages.invalidParams),
        (decoded): InContext<R> => ({
          threadId: plain.ordering === "none" ? undefined : definition.threadId?.(decoded),
          owner: definition.owner?.(decoded),
          [requestContextKey]: requestContext(decoded),
          run: (context) => definition.run(decoded, context)
        })
      )
  }
}

/** The MCP request context of a prepared request's whole body, when its method is a {@link methodInContext}. */
export const requestContextOf = <R>(prepared: Prepared<R>): ServerRequests.RequestContext | undefined =>
  (prepared as InContext<R>)[requestContextKey]

/**
 * The refs a request's fiber starts with: `refs` with the method's log span (started now on the
 * fiber's clock) prepended to `outerSpans` (the span list in `refs`) and, when given, `requestContext`
 * as the context of its MCP requests. The plain version is `Effect.withLogSpan(body, method)` and
 * `ServerRequests.withContext(body, requestContext)` around the body, each of which copies the fiber's
 * refs twice (save and restore). BENCHMARKS.md: the row of {@link methodInContext}, and "Reading the
 * results", first round, "Throughput (4)": "requests fork from a captured runtime with their log
 * span set at fiber start".
 */
export const requestRefs = (
  refs: FiberRefs.FiberRefs,
  fiberId: FiberId.Runtime,
  method: string,
  outerSpans: List.List<LogSpan.LogSpan>,
  requestContext: ServerRequests.RequestContext | undefined
): FiberRefs.FiberRefs => {
  const clock = Context.get(FiberRefs.getOrDefault(refs, DefaultServices.currentServices), Clock.Clock)
  const span = LogSpan.make(method, clock.unsafeCurrentTimeMillis())
  const spans = [FiberRef.currentLogSpan, [[fiberId, List.prepend(outerSpans, span)]]] as const
  return FiberRefs.updateManyAs(refs, {
    entries:
      requestContext === undefined ? [spans] : [spans, [ServerRequests.currentContext, [[fiberId, requestContext]]]]
  })
}

/**
 * `Effect.catchAllDefect(effect, onDefect)`, but `Effect.void` is returned as it is (a message that
 * started a request answers from the request's own fiber: nothing more runs in the reader's step).
 * BENCHMARKS.md, "Reading the results", second round, "Fewer runtime steps per request": "the
 * app-server starts a checked request's fiber in the reader's step" (row "4. app-server reads, 64 in
 * flight | app-server mcp/resource/read").
 */
export const catchAllDefect = <E, R>(
  effect: Effect.Effect<void, E, R>,
  onDefect: (defect: unknown) => Effect.Effect<void, E, R>
): Effect.Effect<void, E, R> => (effect === Effect.void ? effect : Effect.catchAllDefect(effect, onDefect))
