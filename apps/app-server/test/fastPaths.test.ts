/**
 * Every fast path of `src/internal/fastPaths.ts` against its plain version, in this process: a
 * method in a request context started on the dispatcher's refs sees what the plain method sees
 * inside `Effect.withLogSpan` and `ServerRequests.withContext` (the same decode failures, thread, log
 * spans and MCP request context), and `catchAllDefect` is `Effect.catchAllDefect`.
 */
import { assert, describe, it } from "@effect/vitest"
import { AppServer, Wire } from "@mcp-resources/protocol"
import { ServerRequests } from "@mcp-resources/resource-client"
import {
  Arbitrary,
  Cause,
  Clock,
  Context,
  DefaultServices,
  Effect,
  Either,
  Exit,
  FastCheck as fc,
  Fiber,
  FiberId,
  FiberRef,
  FiberRefs,
  List,
  LogSpan,
  Runtime
} from "effect"
import { catchAllDefect, methodInContext, requestContextOf, requestRefs } from "../src/internal/fastPaths.js"
import { type Definition, method, type Ordering, type RequestContext } from "../src/Method.js"

type Read = "mcp/resource/read"
const name: Read = "mcp/resource/read"

/** A clock that always reads `now`, so that both sides' log spans start at the same time. */
const clockAt = (now: number): Clock.Clock =>
  Object.assign(Object.create(Clock.make()) as Clock.Clock, {
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now)
  })

/** A runtime like the dispatcher's: a clock and the spans the request's fiber inherits. */
const runtimeWith = (now: number, outer: ReadonlyArray<string>): Runtime.Runtime<never> => {
  const id = FiberId.runtime(0, 0)
  const spans = outer.reduceRight(
    (list, label) => List.prepend(list, LogSpan.make(label, now - 1)),
    List.empty<LogSpan.LogSpan>()
  )
  return Runtime.make({
    context: Context.empty(),
    runtimeFlags: Runtime.defaultRuntimeFlags,
    fiberRefs: FiberRefs.updateManyAs(FiberRefs.empty(), {
      entries: [
        [DefaultServices.currentServices, [[id, Context.add(DefaultServices.liveServices, Clock.Clock, clockAt(now))]]],
        [FiberRef.currentLogSpan, [[id, spans]]]
      ]
    })
  })
}

/** What a body can observe of the refs it runs in. */
const observe = Effect.all({
  context: FiberRef.get(ServerRequests.currentContext),
  spans: Effect.map(FiberRef.get(FiberRef.currentLogSpan), (spans) =>
    List.toArray(spans).map((span) => [span.label, span.startTime])
  )
})

/** The context of a plain read on a thread, as `handlers/resources.ts` names it. */
const readContext = (p: AppServer.Params<Read>): ServerRequests.RequestContext | undefined => {
  const threadId = p.threadId ?? null
  return threadId !== null && (p.originCallId ?? null) === null ? { threadId } : undefined
}

const connection = {} as RequestContext["connection"]
const codecs = Wire.makeCodecs()

describe("fastPaths", () => {
  it("methodInContext started on requestRefs is method with ServerRequests.withContext inside Effect.withLogSpan", async () => {
    const params = fc.oneof(Arbitrary.make(AppServer.methods[name]), fc.anything(), fc.record({ server: fc.string() }))
    const ordering = fc.constantFrom<Ordering>("none", "exclusive", "call")
    await fc.assert(
      fc.asyncProperty(
        params,
        ordering,
        fc.array(fc.string(), { maxLength: 3 }),
        fc.integer({ min: 0 }),
        async (p, order, outer, now) => {
          const definition: Definition<Read, never> = {
            ordering: order,
            threadId: (decoded) => `thread of ${decoded.server}`,
            run: () => observe as never
          }
          const runtime = runtimeWith(now, outer)
          const fast = methodInContext(name, readContext, definition).prepare(p, codecs)
          const plain = method(name, {
            ...definition,
            run: (decoded, context) => {
              const body = definition.run(decoded, context)
              const requestContext = readContext(decoded)
              return requestContext === undefined ? body : ServerRequests.withContext(body, requestContext)
            }
          }).prepare(p, codecs)
          if (Either.isLeft(plain) || Either.isLeft(fast)) {
            assert.deepStrictEqual(fast.pipe(Either.map(() => "prepared")), plain.pipe(Either.map(() => "prepared")))
            return
          }
          assert.strictEqual(fast.right.threadId, plain.right.threadId)
          const fastFiber = Runtime.runFork(runtime)(fast.right.run({ connection }), {
            updateRefs: (refs, fiberId) =>
              requestRefs(
                refs,
                fiberId,
                name,
                FiberRefs.getOrDefault(refs, FiberRef.currentLogSpan),
                requestContextOf(fast.right)
              )
          })
          const plainFiber = Runtime.runFork(runtime)(Effect.withLogSpan(plain.right.run({ connection }), name))
          const [fastSeen, plainSeen] = await Effect.runPromise(Fiber.joinAll([fastFiber, plainFiber]))
          assert.deepStrictEqual(fastSeen, plainSeen)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("a plain read on a thread is prepared with the thread as its request context; others with none", () => {
    const read = methodInContext(name, readContext, { run: () => observe as never })
    const prepared = (params: unknown) => Either.getOrThrow(read.prepare(params, codecs))
    assert.deepStrictEqual(requestContextOf(prepared({ server: "s", uri: "u", threadId: "t" })), { threadId: "t" })
    assert.isUndefined(requestContextOf(prepared({ server: "s", uri: "u", threadId: "t", originCallId: "c" })))
    assert.isUndefined(requestContextOf(prepared({ server: "s", uri: "u" })))
    // a method defined without a context has none
    assert.isUndefined(
      requestContextOf(
        Either.getOrThrow(
          method(name, { run: () => observe as never }).prepare({ server: "s", uri: "u", threadId: "t" }, codecs)
        )
      )
    )
  })

  it("catchAllDefect is Effect.catchAllDefect, and keeps Effect.void as it is", () => {
    const outcome = fc.oneof(
      fc.constant<"void" | "log" | "die" | "fail">("void"),
      fc.constantFrom<"void" | "log" | "die" | "fail">("log", "die", "fail")
    )
    fc.assert(
      fc.property(outcome, fc.string(), (o, text) => {
        const once = (implementation: typeof catchAllDefect) => {
          const log: Array<string> = []
          const effect: Effect.Effect<void, string> =
            o === "void"
              ? Effect.void
              : o === "log"
                ? Effect.sync(() => void log.push(text))
                : o === "die"
                  ? Effect.die(text)
                  : Effect.fail(text)
          const exit = Effect.runSyncExit(
            implementation(effect, (defect) => Effect.sync(() => void log.push(`defect ${defect}`)))
          )
          return {
            exit: Exit.isSuccess(exit) ? "success" : [...Cause.failures(exit.cause), ...Cause.defects(exit.cause)],
            log
          }
        }
        assert.deepStrictEqual(once(catchAllDefect), once(Effect.catchAllDefect))
      })
    )
    assert.strictEqual(
      catchAllDefect(Effect.void, () => Effect.void),
      Effect.void
    )
  })
})
