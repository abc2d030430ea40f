/**
 * The origin state machine (resource-origins.md sections 1 to 7): pure functions over one thread's
 * state. `OriginStore` wraps it in a service; nothing here performs effects.
 */
import { Errors, OriginCheckpoint, type ThreadEvent } from "@mcp-resources/protocol"
import { byteLength } from "@mcp-resources/protocol/Utf8"
import { Either, Option, ParseResult, Schema } from "effect"

/** At most this many origins are kept per thread. */
export const maxOrigins = 64
/** At most this many turn ids are kept per thread. */
export const maxTurns = 64
/** The largest size of one origin, in bytes (see {@link originSize}). */
export const maxOriginBytes = 1024
/** The largest byte length of one turn id. */
export const maxTurnIdBytes = 1024

/** `originating MCP tool call was not found or did not complete successfully` */
export const notFoundMessage = "originating MCP tool call was not found or did not complete successfully"

/** One remembered successful apps-server tool call that pointed at a resource. */
export interface Origin {
  readonly callId: string
  readonly turnId?: string
  /** The raw MCP tool name as the server lists it, never the `mcp__…` function name. */
  readonly tool: string
  readonly connectorId: string
  readonly linkId?: string
  /** The call's `mcpAppResourceUri`. */
  readonly uri: string
  readonly ambiguousAccount: boolean
}

/** One thread's origin state: origins and turns oldest first, and the current turn. */
export interface State {
  readonly origins: ReadonlyArray<Origin>
  readonly turns: ReadonlyArray<string>
  readonly currentTurnId?: string
}

/** Options of the state machine. */
export interface Options {
  /** The apps server name (config `apps.server_name`); only its calls are remembered. */
  readonly appsServerName: string
}

/** The inputs of {@link remember} (resource-origins.md section 3). */
export interface RememberInput {
  readonly callId: string
  readonly turnId?: string | undefined
  readonly server: string
  readonly tool: string
  /** The parsed JSON arguments, or `null`. */
  readonly arguments: unknown
  readonly connectorId?: string | undefined
  readonly linkId?: string | undefined
  readonly uri?: string | undefined
}

/** The outcome of {@link restore}: the new state, and whether (and why) the checkpoint was discarded. */
export interface RestoreResult {
  readonly state: State
  readonly discarded: boolean
  readonly reason?: string
}

/** The state with no origins, no turns and no current turn. */
export const empty: State = { origins: [], turns: [] }

/** The byte length of the UTF-8 encoding of `s` (`Utf8.byteLength` of protocol). */
export { byteLength }

const isBlank = (s: string): boolean => s.trim() === ""

/** The size of an origin: the byte lengths of every string field summed; `ambiguousAccount` is not counted. */
export const originSize = (origin: Omit<Origin, "ambiguousAccount">): number =>
  byteLength(origin.callId) +
  (origin.turnId === undefined ? 0 : byteLength(origin.turnId)) +
  byteLength(origin.tool) +
  byteLength(origin.connectorId) +
  (origin.linkId === undefined ? 0 : byteLength(origin.linkId)) +
  byteLength(origin.uri)

const withCurrent = (origins: ReadonlyArray<Origin>, turns: ReadonlyArray<string>, current: string | undefined) =>
  current === undefined ? { origins, turns } : { origins, turns, currentTurnId: current }

const argumentLinkId = (args: unknown): string | undefined => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined
  const value = Object.hasOwn(args, "link_id") ? (args as Record<string, unknown>).link_id : undefined
  return typeof value === "string" && !isBlank(value) ? value : undefined
}

/** The origin {@link remember} would add, or undefined when a condition of section 3 does not hold. */
const originOf = (input: RememberInput, options: Options): Origin | undefined => {
  if (input.server !== options.appsServerName) return undefined
  if (input.connectorId === undefined || isBlank(input.connectorId)) return undefined
  if (input.uri === undefined) return undefined
  const linkId = input.linkId !== undefined && !isBlank(input.linkId) ? input.linkId : undefined
  const argLink = argumentLinkId(input.arguments)
  const origin: Origin = {
    callId: input.callId,
    ...(input.turnId !== undefined ? { turnId: input.turnId } : {}),
    tool: input.tool,
    connectorId: input.connectorId,
    ...(linkId !== undefined ? { linkId } : {}),
    uri: input.uri,
    ambiguousAccount: argLink !== undefined && argLink !== linkId
  }
  return originSize(origin) > maxOriginBytes ? undefined : origin
}

/** Remembers a successful call when every condition of section 3 holds; otherwise returns `state` unchanged. */
export const remember = (state: State, input: RememberInput, options: Options): State => {
  const origin = originOf(input, options)
  if (origin === undefined) return state
  const kept = state.origins.filter((o) => o.callId !== input.callId)
  const room = kept.length >= maxOrigins ? kept.slice(kept.length - maxOrigins + 1) : kept
  return withCurrent([...room, origin], state.turns, state.currentTurnId)
}

const turnStarted = (state: State, turnId: string): State => {
  if (byteLength(turnId) > maxTurnIdBytes) return state
  const turns = state.turns[state.turns.length - 1] === turnId ? state.turns : [...state.turns, turnId]
  return withCurrent(state.origins, turns.length > maxTurns ? turns.slice(turns.length - maxTurns) : turns, turnId)
}

const rolledBack = (state: State, numTurns: number): State => {
  let origins = state.origins
  let turns = state.turns
  for (let i = 0; i < numTurns; i++) {
    const removed = turns[turns.length - 1]
    if (removed === undefined) return empty
    turns = turns.slice(0, -1)
    origins = origins.filter((o) => o.turnId !== undefined && o.turnId !== removed)
  }
  return withCurrent(origins, turns, turns[turns.length - 1])
}

/** The input of {@link remember} for an event that may remember a call, or undefined. */
const rememberInput = (
  event: ThreadEvent.ThreadEvent,
  currentTurnId: string | undefined
): RememberInput | undefined => {
  switch (event._tag) {
    case "itemCompleted": {
      const item = event.item
      if (item.type !== "mcpToolCall" || item.status !== "completed") return undefined
      return {
        callId: item.id,
        turnId: event.turnId,
        server: item.server,
        tool: item.tool,
        arguments: item.arguments,
        connectorId: item.connectorId,
        linkId: item.linkId,
        uri: item.mcpAppResourceUri
      }
    }
    case "toolCallEnded":
      if (!event.ok || event.isError === true) return undefined
      return {
        callId: event.callId,
        turnId: currentTurnId,
        server: event.server,
        tool: event.tool,
        arguments: event.arguments === undefined ? null : event.arguments,
        connectorId: event.connectorId,
        linkId: event.linkId,
        uri: event.mcpAppResourceUri
      }
    default:
      return undefined
  }
}

/** Applies one recorded thread event (section 2). `itemStarted` and `compacted` change nothing live. */
export const apply = (state: State, event: ThreadEvent.ThreadEvent, options: Options): State => {
  switch (event._tag) {
    case "turnStarted":
      return turnStarted(state, event.turnId)
    case "itemStarted":
    case "compacted":
    case "toolAudited":
    case "resourceSubscribed":
    case "resourceUnsubscribed":
    case "resourceChanged":
    case "resourceChangesTaken":
      return state
    case "itemCompleted":
    case "toolCallEnded": {
      const input = rememberInput(event, state.currentTurnId)
      return input === undefined ? state : remember(state, input, options)
    }
    case "threadRolledBack":
      return rolledBack(state, event.numTurns)
  }
}

/**
 * A state under construction, changed in place by {@link applyInPlace}: replaying many events then
 * copies nothing per event. It ends in the same state as folding {@link apply} over the same events.
 */
interface Builder {
  origins: Array<Origin>
  turns: Array<string>
  current: string | undefined
}

/** Removes, in place, the elements that fail `keep`. */
const retain = <A>(items: Array<A>, keep: (a: A) => boolean): void => {
  let n = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (keep(item)) items[n++] = item
  }
  items.length = n
}

const applyInPlace = (b: Builder, event: ThreadEvent.ThreadEvent, options: Options): void => {
  switch (event._tag) {
    case "turnStarted": {
      const turnId = event.turnId
      if (byteLength(turnId) > maxTurnIdBytes) return
      if (b.turns[b.turns.length - 1] !== turnId) b.turns.push(turnId)
      if (b.turns.length > maxTurns) b.turns.splice(0, b.turns.length - maxTurns)
      b.current = turnId
      return
    }
    case "itemStarted":
    case "compacted":
    case "toolAudited":
    case "resourceSubscribed":
    case "resourceUnsubscribed":
    case "resourceChanged":
    case "resourceChangesTaken":
      return
    case "itemCompleted":
    case "toolCallEnded": {
      const input = rememberInput(event, b.current)
      if (input === undefined) return
      const origin = originOf(input, options)
      if (origin === undefined) return
      retain(b.origins, (o) => o.callId !== input.callId)
      if (b.origins.length >= maxOrigins) b.origins.splice(0, b.origins.length - maxOrigins + 1)
      b.origins.push(origin)
      return
    }
    case "threadRolledBack": {
      for (let i = 0; i < event.numTurns; i++) {
        const removed = b.turns.pop()
        if (removed === undefined) {
          b.origins = []
          b.turns = []
          b.current = undefined
          return
        }
        retain(b.origins, (o) => o.turnId !== undefined && o.turnId !== removed)
      }
      b.current = b.turns[b.turns.length - 1]
      return
    }
  }
}

/** The newest origin with that call id, or an `AccessError` with {@link notFoundMessage}. */
export const find = (state: State, callId: string): Either.Either<Origin, Errors.AccessError> => {
  for (let i = state.origins.length - 1; i >= 0; i--) {
    const origin = state.origins[i]!
    if (origin.callId === callId) return Either.right(origin)
  }
  return Either.left(new Errors.AccessError({ message: notFoundMessage }))
}

/** The checkpoint of section 5 (snake_case, keys in order); `None` when there are no origins, whatever the turns. */
export const checkpoint = (state: State): Option.Option<OriginCheckpoint.OriginCheckpoint> => {
  if (state.origins.length === 0) return Option.none()
  const origins = state.origins.map(
    (o): OriginCheckpoint.CheckpointOrigin => ({
      call_id: o.callId,
      ...(o.turnId !== undefined ? { turn_id: o.turnId } : {}),
      tool: o.tool,
      connector_id: o.connectorId,
      ...(o.linkId !== undefined ? { link_id: o.linkId } : {}),
      uri: o.uri,
      ...(o.ambiguousAccount ? { ambiguous_account: true } : {})
    })
  )
  return Option.some({
    origins,
    turns: [...state.turns],
    ...(state.currentTurnId !== undefined ? { current_turn_id: state.currentTurnId } : {})
  })
}

const decodeCheckpoint = Schema.decodeUnknownEither(OriginCheckpoint.OriginCheckpoint)

const discard = (reason: string): RestoreResult => ({ state: empty, discarded: true, reason })

/**
 * Restores a checkpoint (section 6): the state is replaced wholesale, or reset to empty (the whole
 * checkpoint discarded, with a reason) when it does not decode or breaks a bound or rule.
 */
export const restore = (input: unknown): RestoreResult => {
  const decoded = decodeCheckpoint(input)
  if (Either.isLeft(decoded)) {
    return discard(`the checkpoint does not decode: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
  }
  const cp = decoded.right
  if (cp.origins.length > maxOrigins) return discard(`more than ${maxOrigins} origins`)
  if (cp.turns.length > maxTurns) return discard(`more than ${maxTurns} turns`)
  if (cp.turns.some((t) => byteLength(t) > maxTurnIdBytes)) {
    return discard(`a turn id longer than ${maxTurnIdBytes} bytes`)
  }
  if (cp.current_turn_id !== undefined && byteLength(cp.current_turn_id) > maxTurnIdBytes) {
    return discard(`current_turn_id longer than ${maxTurnIdBytes} bytes`)
  }
  const origins: Array<Origin> = []
  for (const o of cp.origins) {
    const origin: Origin = {
      callId: o.call_id,
      ...(o.turn_id !== undefined ? { turnId: o.turn_id } : {}),
      tool: o.tool,
      connectorId: o.connector_id,
      ...(o.link_id !== undefined ? { linkId: o.link_id } : {}),
      uri: o.uri,
      ambiguousAccount: o.ambiguous_account === true
    }
    if (isBlank(origin.connectorId)) return discard(`origin ${JSON.stringify(o.call_id)} has a blank connector_id`)
    if (originSize(origin) > maxOriginBytes) {
      return discard(`origin ${JSON.stringify(o.call_id)} is larger than ${maxOriginBytes} bytes`)
    }
    origins.push(origin)
  }
  return { state: withCurrent(origins, [...cp.turns], cp.current_turn_id), discarded: false }
}

/** What {@link replay} did: the rebuilt state and, when a checkpoint was discarded, the restore outcome. */
export interface ReplayResult {
  readonly state: State
  /** The restore of the newest `compacted` record's checkpoint, when it held one. */
  readonly restored?: RestoreResult
}

/**
 * A replay fed one record at a time, for a thread read page by page: after the same events in order,
 * {@link Replayer.result} is what {@link replay} returns for them. Each `compacted` event restores its
 * checkpoint (or the empty state when it holds none), so the newest one decides, whatever came before.
 */
export interface Replayer {
  /** Applies the thread's next recorded event. */
  readonly add: (event: ThreadEvent.ThreadEvent) => void
  /** The state so far (a copy: later events do not change it) and the newest compaction's restore. */
  readonly result: () => ReplayResult
}

/** A {@link Replayer} starting from the empty state. */
export const replayer = (options: Options): Replayer => {
  let restored: RestoreResult | undefined
  const b: Builder = { origins: [], turns: [], current: undefined }
  return {
    add: (event) => {
      if (event._tag !== "compacted") return applyInPlace(b, event, options)
      restored = event.state.mcp_resource_origins === undefined ? undefined : restore(event.state.mcp_resource_origins)
      const initial = restored?.state ?? empty
      b.origins = [...initial.origins]
      b.turns = [...initial.turns]
      b.current = initial.currentTurnId
    },
    result: () => {
      const state = withCurrent([...b.origins], [...b.turns], b.current)
      return restored === undefined ? { state } : { state, restored }
    }
  }
}

/**
 * Rebuilds a thread's state from its records (section 7), reporting the restore: from the newest
 * `compacted` event restore its checkpoint (empty when it holds none, or without any `compacted`
 * event), then apply every later event in order. Only the records from the newest compaction on are read.
 */
export const replay = (events: ReadonlyArray<ThreadEvent.ThreadEvent>, options: Options): ReplayResult => {
  let start = 0
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!._tag === "compacted") {
      start = i
      break
    }
  }
  const r = replayer(options)
  for (let i = start; i < events.length; i++) r.add(events[i]!)
  return r.result()
}

/** Rebuilds a thread's state from its records: the same state in every process (see {@link replay}). */
export const rebuild = (events: ReadonlyArray<ThreadEvent.ThreadEvent>, options: Options): State =>
  replay(events, options).state
