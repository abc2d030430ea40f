/**
 * The shared failure model. Every failure of a resource operation is one of four tagged errors,
 * told apart by `reason`; `message` is always the whole message chain a user sees
 * (outer context first, each inner cause appended after `": "`, resource-tools.md section 0).
 */
import { Schema } from "effect"

/** Which layer refused: bad arguments, a gate, a local transport failure, or the MCP server itself. */
export type Reason = "parameter" | "access" | "transport" | "server"

/** Bad arguments from a model or a client. The message is model-facing, exactly as the specs give it. */
export class ParameterError extends Schema.TaggedError<ParameterError>()("ParameterError", {
  message: Schema.String
}) {
  /** The failure layer. */
  get reason(): "parameter" {
    return "parameter"
  }
}

/** A gate refused the operation (access gate, origin checks, app policy, disabled feature). */
export class AccessError extends Schema.TaggedError<AccessError>()("AccessError", {
  message: Schema.String
}) {
  /** The failure layer. */
  get reason(): "access" {
    return "access"
  }
}

/** What kind of local failure a {@link TransportError} is. */
export const TransportKind = Schema.Literal(
  "unknownServer",
  "unavailable",
  "startup",
  "timeout",
  "closed",
  "invalidResult",
  "oversize",
  "cancelled",
  "pagination",
  "other"
)
/** What kind of local failure a {@link TransportError} is. */
export type TransportKind = typeof TransportKind.Type

/** A local failure: unknown server, failed startup, timeout, closed connection, malformed result. */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  kind: TransportKind,
  message: Schema.String
}) {
  /** The failure layer. */
  get reason(): "transport" {
    return "transport"
  }
}

/** A JSON-RPC error response from an MCP server; `message` renders it as `Mcp error: {code}: {message}` plus context. */
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", {
  code: Schema.Number,
  serverMessage: Schema.String,
  message: Schema.String
}) {
  /** The failure layer. */
  get reason(): "server" {
    return "server"
  }
}

/** Any failure of a resource or tool operation. */
export type ResourceFailure = ParameterError | AccessError | TransportError | ServerError

/** The schema of {@link ResourceFailure}, for persisting or sending failures. */
export const ResourceFailure = Schema.Union(ParameterError, AccessError, TransportError, ServerError)

/** True for any of the four failure classes. */
export const isResourceFailure = (u: unknown): u is ResourceFailure =>
  u instanceof ParameterError || u instanceof AccessError || u instanceof TransportError || u instanceof ServerError

/** Prepends `context` to the message chain, keeping the class and its fields. */
export const withContext = <E extends ResourceFailure>(error: E, context: string): E => {
  const message = `${context}: ${error.message}`
  switch (error._tag) {
    case "ParameterError":
      return new ParameterError({ message }) as E
    case "AccessError":
      return new AccessError({ message }) as E
    case "TransportError":
      return new TransportError({ kind: error.kind, message }) as E
    case "ServerError":
      return new ServerError({ code: error.code, serverMessage: error.serverMessage, message }) as E
  }
}

/** A server's JSON-RPC error response, rendered as the specs require (the SDK's own text is not used). */
export const serverError = (code: number, serverMessage: string): ServerError =>
  new ServerError({ code, serverMessage, message: `Mcp error: ${code}: ${serverMessage}` })
