/**
 * Skill discovery (skills.md section 2): pages of the apps server's resources under one 10 s deadline
 * and at most 10 pages, turned into a {@link Catalog.Catalog}. The page source is a function, so the
 * rules can be driven without a server.
 */
import { Errors, type Mcp } from "@mcp-resources/protocol"
import { Clock, Duration, Effect, Either } from "effect"
import * as Catalog from "./Catalog.js"
import * as SkillMessages from "./SkillMessages.js"

/** One `resources/list` page of the apps server; the first page has no cursor. */
export type FetchPage = (cursor: string | undefined) => Effect.Effect<Mcp.ListResourcesResult, Errors.ResourceFailure>

/** The deadline covering the whole discovery. */
export const deadline: Duration.Duration = Duration.seconds(10)

/** The most pages one discovery fetches. */
export const maxPages = 10

/** Why discovery failed on its first page; `message` is the whole chain (a warning of the cached catalog). */
export type DiscoveryFailure = Errors.ResourceFailure

const timedOut = () => new Errors.TransportError({ kind: "timeout", message: SkillMessages.discoveryTimedOut })

/**
 * Runs discovery: a failure of the first page fails with `failed to list orchestrator skill resources: {chain}`
 * (or the timeout message); a failure of a later page keeps what was collected and becomes a warning.
 */
export const discover = Effect.fn("Discovery.discover")(function* (fetchPage: FetchPage) {
  const deadlineAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(deadline)
  const fetchWithinDeadline = (cursor: string | undefined) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now >= deadlineAt
        ? Effect.fail(timedOut())
        : fetchPage(cursor).pipe(
            Effect.mapError((error): DiscoveryFailure => Errors.withContext(error, SkillMessages.listFailedContext)),
            Effect.timeoutFail({ duration: Duration.millis(deadlineAt - now), onTimeout: timedOut })
          )
    )

  const resources: Array<Mcp.Resource> = []
  const warnings: Array<string> = []
  const seenCursors = new Set<string>()
  let truncated = false
  let pages = 0
  let cursor: string | undefined
  while (true) {
    const page = yield* Effect.either(fetchWithinDeadline(cursor))
    if (Either.isLeft(page)) {
      if (pages === 0) return yield* Effect.fail(page.left)
      warnings.push(SkillMessages.discoveryStopped(pages, page.left.message))
      break
    }
    pages++
    resources.push(...page.right.resources)
    const next = page.right.nextCursor
    if (next === undefined) break
    if (seenCursors.has(next)) {
      warnings.push(SkillMessages.duplicateCursor)
      break
    }
    if (pages >= maxPages) {
      truncated = true
      break
    }
    seenCursors.add(next)
    cursor = next
  }
  const catalog = Catalog.fromResources(resources, { warnings, truncated })
  yield* Effect.logDebug("orchestrator skill discovery finished").pipe(
    Effect.annotateLogs({ pages, resources: resources.length, skills: catalog.skills.length })
  )
  return catalog
})
