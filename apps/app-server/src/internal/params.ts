/**
 * Params decoding of the methods: the schemas and the `Invalid request: {detail}` rendering are the
 * protocol's (`@mcp-resources/protocol` AppServer); absent params count as `{}`.
 */
import { AppServer } from "@mcp-resources/protocol"
import { Either, type Schema } from "effect"

export const {
  InitializeParams,
  ThreadConfig,
  ThreadStartParams,
  ThreadIdParams,
  TurnStartParams,
  ToolCallParams,
  McpResourceReadParams: ResourceReadParams,
  ThreadRollbackParams: RollbackParams,
  SkillsReadParams,
  EmptyObject: EmptyParams
} = AppServer

/** The per-thread config override of `thread/start`. */
export type ThreadConfig = AppServer.ThreadConfig

/** Decodes params (absent params count as `{}`); the failure is the whole `Invalid request: …` message. */
export const decodeParams = <A, I>(schema: Schema.Schema<A, I>, params: unknown): Either.Either<A, string> =>
  Either.mapLeft(AppServer.decodeWith(schema, params), AppServer.messages.invalidParams)
