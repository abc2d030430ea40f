/**
 * The failures of the client: {@link ResponseError} is the server's JSON-RPC error answer (with its
 * code, message and data); {@link ClientError} is a local failure (a timeout, a closed connection,
 * params that do not encode, a result that does not decode, a transport that could not start).
 */
import { Schema } from "effect"

/** The server answered the request with a JSON-RPC error. */
export class ResponseError extends Schema.TaggedError<ResponseError>()("ResponseError", {
  /** The method of the request. */
  method: Schema.String,
  /** The JSON-RPC error code (see `AppServer.ErrorCode` of `@mcp-resources/protocol`). */
  code: Schema.Number,
  /** The server's message, exactly as sent. */
  message: Schema.String,
  /** The error's `data`, when the server sent one. */
  data: Schema.optional(Schema.Unknown)
}) {}

/** Why a request failed on this side of the connection. */
export const ClientErrorReason = Schema.Literal(
  /** No answer came within the request's timeout (`$/cancelRequest` was sent). */
  "timeout",
  /** The connection closed (the process exited, the socket closed) before the answer, or was closed. */
  "closed",
  /** The params do not match the method's schema; nothing was sent. */
  "params",
  /** The server's result does not match the method's result schema. */
  "result",
  /** The transport could not be opened, or failed. */
  "transport"
)
/** Why a request failed on this side of the connection. */
export type ClientErrorReason = typeof ClientErrorReason.Type

/** A local failure: the request got no usable answer. `message` says what happened and to which request. */
export class ClientError extends Schema.TaggedError<ClientError>()("ClientError", {
  reason: ClientErrorReason,
  message: Schema.String
}) {}
