/**
 * What an SDK failure means for us: a server's JSON-RPC error (`Mcp error: {code}: {message}`), a
 * local failure (timeout, closed connection, invalid result), a lost HTTP connection, or, at start-up,
 * the server's own reason (its HTTP status and answer, its JSON-RPC error, the network error code).
 */
import { Errors, Messages, ServerUrl } from "@mcp-resources/protocol"
import type { ProtocolError, SdkErrorCode } from "@modelcontextprotocol/client"
import { isRecord } from "@mcp-resources/protocol/Records"
import type { ServerEntry } from "../ServerEntry.js"
import { invalidResponseMessage } from "./responseGuard.js"
import * as Sdk from "./sdk.js"
import type { HttpFailure, HttpTrace } from "./transports.js"

// A value can be one of the SDK's errors only once a connection has loaded the SDK (see sdk.ts).

/** A JSON-RPC error the server answered with. */
const isProtocolError = (error: unknown): error is ProtocolError => {
  const sdk = Sdk.current()?.client
  return sdk !== undefined && error instanceof sdk.ProtocolError
}

/** The status of the SDK's HTTP error (`SdkHttpError`), else undefined. */
const sdkHttpStatus = (error: unknown): number | undefined => {
  const sdk = Sdk.current()?.client
  return sdk !== undefined && error instanceof sdk.SdkHttpError ? error.status : undefined
}

/** One of the SDK's own errors with the code `pick` chooses. */
const isSdkError = (error: unknown, pick: (codes: typeof SdkErrorCode) => SdkErrorCode): boolean => {
  const sdk = Sdk.current()?.client
  return sdk !== undefined && error instanceof sdk.SdkError && error.code === pick(sdk.SdkErrorCode)
}

export const transportError = (kind: Errors.TransportKind, message: string) =>
  new Errors.TransportError({ kind, message })

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : String(error)

/**
 * The failure with `redact` applied to its texts: an HTTP entry's messages never quote its URL's query
 * values or credentials (`ServerUrl.redactIn`), whoever wrote them (the SDK, the server's error page).
 */
export const redactedError = <E extends Errors.TransportError | Errors.ServerError>(
  error: E,
  redact: (text: string) => string
): E => {
  if (error._tag === "TransportError") {
    const message = redact(error.message)
    return (message === error.message ? error : new Errors.TransportError({ kind: error.kind, message })) as E
  }
  const message = redact(error.message)
  const serverMessage = redact(error.serverMessage)
  return (
    message === error.message && serverMessage === error.serverMessage
      ? error
      : new Errors.ServerError({ code: error.code, serverMessage, message })
  ) as E
}

/** What redacts the messages of an entry: its URL's secret parts for HTTP entries, nothing otherwise. */
export const redactorOf = (entry: ServerEntry): ((text: string) => string) => {
  const transport = entry.transport
  return transport._tag === "http" ? (text) => ServerUrl.redactIn(text, transport.url) : (text) => text
}

export const closedError = (reason: string) =>
  transportError(reason.startsWith("message exceeds ") ? "oversize" : "closed", reason)

/** The server's message of a JSON-RPC error (older SDKs prefixed it with `MCP error {code}: `). */
const serverText = (error: ProtocolError): string => {
  const prefix = `MCP error ${error.code}: `
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
}

/**
 * The SDK's own result check (2026-07-28 results) in our words: `invalid {method} result at {path}:
 * {issue}`, the path and issue of its first finding (a blob that is not base64 says so as ours does).
 */
const sdkInvalidResult = (message: string, method: string): string => {
  const start = message.indexOf("[")
  const issues = start < 0 ? undefined : parseJson(message.slice(start))
  const first: unknown = Array.isArray(issues) ? issues[0] : undefined
  if (!isRecord(first) || !Array.isArray(first.path)) return message
  const path = first.path.length === 0 ? "result" : first.path.join(".")
  const issue =
    first.path.at(-1) === "blob" ? Messages.invalidBlob : String(first.message ?? "does not match the MCP schema")
  return `invalid ${method} result at ${path}: ${issue}`
}

/** Maps an SDK failure: server responses become `Mcp error: {code}: {message}`, local failures stay local. */
export const mapSdkError = (
  error: unknown,
  method: string,
  timeoutMillis: number,
  closedReason: () => string | undefined,
  trace?: HttpTrace | undefined
): Errors.TransportError | Errors.ServerError => {
  const login = loginNeeded(trace, error)
  if (login !== undefined) return transportError("unavailable", login)
  const answer = trace === undefined ? undefined : answerFailure(error, trace)
  if (answer !== undefined) {
    const reason = closedReason()
    return reason !== undefined ? closedError(reason) : transportError("invalidResult", answer)
  }
  if (isProtocolError(error)) {
    const invalid = invalidResponseMessage(error.data)
    if (invalid !== undefined) return transportError("invalidResult", invalid)
    return Errors.serverError(error.code, serverText(error))
  }
  const sdk = Sdk.current()?.client
  if (sdk !== undefined && error instanceof sdk.SdkError) {
    const Code = sdk.SdkErrorCode
    switch (error.code) {
      case Code.RequestTimeout:
        return transportError("timeout", Messages.timedOutAwaiting(method, timeoutMillis))
      case Code.ConnectionClosed:
      case Code.NotConnected:
        return closedError(closedReason() ?? Messages.connectionClosed)
      case Code.InvalidResult:
        return transportError("invalidResult", sdkInvalidResult(error.message, method))
      case Code.UnsupportedResultType:
        return transportError("invalidResult", error.message)
    }
  }
  const reason = closedReason()
  if (reason !== undefined) return closedError(reason)
  return transportError("other", errorMessage(error))
}

/** An error of the optional GET stream that only says the server offers none (404/405 before a session exists). */
export const noStream = (error: unknown, sessionId: string | undefined): boolean => {
  const status = sdkHttpStatus(error)
  return (
    isSdkError(error, (code) => code.ClientHttpFailedToOpenStream) &&
    (status === 405 || (status === 404 && sessionId === undefined))
  )
}

/**
 * The reason when an HTTP transport error means the connection is gone: a request could not reach
 * the server at all (refused, reset, unreachable), or the server no longer knows the session it
 * issued (404 once a session id exists). A 404 or 405 on the optional GET stream means only that
 * the server offers no stream.
 */
export const httpConnectionLost = (error: unknown, sessionId: string | undefined): string | undefined => {
  if (error instanceof TypeError && error.message === "fetch failed") {
    const code = (error.cause as { readonly code?: unknown } | undefined)?.code
    return typeof code === "string" ? `fetch failed (${code})` : "fetch failed"
  }
  if (sdkHttpStatus(error) === 404) {
    return sessionId !== undefined ? "the server no longer knows the session (HTTP 404)" : undefined
  }
  const message = errorMessage(error)
  if (message.startsWith("Failed to reconnect SSE stream") || message.startsWith("Maximum reconnection attempts")) {
    return message
  }
  return undefined
}

/**
 * The reason when an HTTP+SSE connection is gone: its event stream failed or ended (the SDK's
 * `SseError`), or a message could not reach the server at all. A POST the server refused is that
 * request's failure, not the connection's.
 */
export const sseConnectionLost = (error: unknown): string | undefined => {
  const sdk = Sdk.current()?.client
  if (sdk !== undefined && error instanceof sdk.SseError) {
    return error.code === undefined ? "the SSE stream ended" : `the SSE stream failed (HTTP ${error.code})`
  }
  return httpConnectionLost(error, undefined)
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

const strings = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) ? u.filter((v): v is string => typeof v === "string") : []

/**
 * The server refused the `initialize` era (`-32022`, also as the cause of the SDK's failed era
 * negotiation) and names `revision` among those it supports.
 */
export const refusedForRevision = (error: unknown, revision: string): boolean => {
  const refusal =
    isSdkError(error, (code) => code.EraNegotiationFailed) && !isProtocolError(error)
      ? (error as { readonly cause?: unknown }).cause
      : error
  return (
    isProtocolError(refusal) &&
    refusal.code === -32022 &&
    isRecord(refusal.data) &&
    strings(refusal.data.supported).includes(revision)
  )
}

/** A JSON-RPC error object's text: `-32022` names both revisions; others give code and message. */
export const jsonRpcErrorText = (code: number, message: string, data: unknown): string => {
  if (code === -32022 && isRecord(data)) {
    const requested = typeof data.requested === "string" ? data.requested : "(unknown)"
    return Messages.startup.unsupportedVersion(requested, strings(data.supported))
  }
  return Messages.startup.jsonRpc(code, message)
}

/** `error="invalid_token", error_description="..."` of a `WWW-Authenticate` header. */
const authParam = (header: string, name: string): string | undefined => {
  const match = new RegExp(`${name}="([^"]*)"`).exec(header) ?? new RegExp(`${name}=([^,\\s]+)`).exec(header)
  return match?.[1]
}

/** The first line of a plain-text body, shortened. */
const firstLine = (text: string): string => {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? ""
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

/** The reason of an HTTP answer that was not a success. */
const statusReason = (failure: Extract<HttpFailure, { _tag: "status" }>): string => {
  const oauthError = authParam(failure.wwwAuthenticate, "error")
  if (oauthError !== undefined) {
    return Messages.startup.oauth(oauthError, authParam(failure.wwwAuthenticate, "error_description"))
  }
  const essence = failure.contentType.split(";")[0]!.trim().toLowerCase()
  const body = failure.body
  if (essence === "text/html" || /^\s*<(!doctype|html)/i.test(body)) return Messages.startup.html
  const json = parseJson(body)
  if (isRecord(json)) {
    if (isRecord(json.error) && typeof json.error.code === "number") {
      return jsonRpcErrorText(json.error.code, String(json.error.message ?? ""), json.error.data)
    }
    if (typeof json.error === "string") {
      const description = typeof json.error_description === "string" ? json.error_description : undefined
      return Messages.startup.oauth(json.error, description)
    }
  }
  const line = firstLine(body)
  if (line !== "") return line
  return failure.status === 404 ? Messages.startup.notFoundHint : Messages.startup.noBody(failure.statusText)
}

/** The text of a recorded HTTP failure. */
export const httpFailureText = (failure: HttpFailure): string => {
  switch (failure._tag) {
    case "status":
      return Messages.startup.http(failure.status, statusReason(failure))
    case "content":
      return failure.contentType === "text/html"
        ? Messages.startup.html
        : Messages.startup.unexpectedContent(failure.contentType)
    case "network": {
      const reason =
        failure.code === undefined || failure.message.includes(failure.code)
          ? failure.message
          : `${failure.message} (${failure.code})`
      return Messages.startup.unreachable(failure.target, reason)
    }
  }
}

/**
 * The message of a failed start-up: the server's own reason where one is known (the HTTP answer
 * the trace recorded, a JSON-RPC error such as `-32022` on stdio, a network error code), else the
 * mapped SDK failure.
 */
export const startupFailure = (
  error: unknown,
  trace: HttpTrace | undefined,
  pinnedModern: boolean,
  timeoutMillis: number,
  closedReason: () => string | undefined
): Errors.TransportError | Errors.ServerError => {
  const login = loginNeeded(trace, error)
  if (login !== undefined) return transportError("startup", login)
  const recorded = trace?.last
  if (recorded !== undefined) return transportError("startup", httpFailureText(recorded))
  if (isProtocolError(error) && error.code === -32022) {
    return transportError("startup", jsonRpcErrorText(error.code, serverText(error), error.data))
  }
  if (isSdkError(error, (code) => code.EraNegotiationFailed)) {
    const cause = (error as { readonly cause?: unknown }).cause
    // the transport closed during the probe (a stdio server that exits at start): its reason, not the SDK's
    const closed = isProtocolError(cause) ? undefined : closedReason()
    if (closed !== undefined) return transportError("startup", closed)
    const detail = isProtocolError(cause)
      ? jsonRpcErrorText(cause.code, serverText(cause), cause.data)
      : errorMessage(error)
    return transportError("startup", pinnedModern ? Messages.startup.noModernRevision(detail) : detail)
  }
  const mapped = mapSdkError(error, "initialize", timeoutMillis, closedReason, trace)
  return mapped._tag === "ServerError" ? mapped : transportError("startup", mapped.message)
}

/**
 * `authorization required …` when an OAuth entry has no usable token: its auth said so, or the
 * server still answered 401 (after the one refresh and retry the transport makes). Also the OAuth
 * failures that are no login: a grant that got no token, and a scope the server requires.
 */
const loginNeeded = (trace: HttpTrace | undefined, error: unknown): string | undefined => {
  const oauth = trace?.oauth
  if (oauth === undefined) return undefined
  const sdk = Sdk.current()?.client
  // a non-interactive grant that got no token: the authorization server's reason
  if (oauth.failure !== undefined) return oauth.failure
  // `403 insufficient_scope` that stayed (see `stepUpFetch`): the scopes a login must ask for
  if (sdk !== undefined && error instanceof sdk.InsufficientScopeError) {
    const scope = error.requiredScope ?? ""
    return oauth.interactive
      ? Messages.oauth.scopeRequired(oauth.server, scope)
      : Messages.oauth.scopeNotGranted(oauth.server, scope)
  }
  const unauthorized =
    (sdk !== undefined && error instanceof sdk.UnauthorizedError) ||
    sdkHttpStatus(error) === 401 ||
    isSdkError(error, (code) => code.ClientHttpAuthentication)
  return oauth.required || unauthorized ? Messages.authorizationRequired(oauth.server) : undefined
}

/** A schema failure of the SDK's JSON-RPC message check (zod). */
const isSchemaFailure = (error: unknown): boolean =>
  error instanceof Error && (error.name === "ZodError" || Array.isArray((error as { issues?: unknown }).issues))

/**
 * Our text for a failed HTTP request whose answer could not be read as JSON-RPC (the SDK's send
 * failed with a JSON syntax error, a schema failure, an unexpected content type, or an error status):
 * `HTTP {status}: invalid answer: {what}`, or the error status as at start-up. Undefined for any
 * other failure (a network failure, an abort: the connection's close handling reads those).
 */
export const answerFailure = (error: unknown, trace: HttpTrace): string | undefined => {
  const status = trace.okStatus ?? 200
  if (error instanceof SyntaxError) {
    return Messages.invalidHttpAnswer(status, Messages.invalidHttpAnswerWhat.notJson)
  }
  if (isSchemaFailure(error)) {
    return Messages.invalidHttpAnswer(status, Messages.invalidHttpAnswerWhat.notJsonRpc)
  }
  if (isSdkError(error, (code) => code.ClientHttpUnexpectedContent)) {
    const contentType = String((error as { data?: { contentType?: unknown } }).data?.contentType ?? "")
    const essence = contentType.split(";")[0]!.trim().toLowerCase()
    return Messages.invalidHttpAnswer(
      status,
      essence === "text/html" ? Messages.startup.html : Messages.startup.unexpectedContent(essence)
    )
  }
  const last = trace.last
  if (isSdkError(error, (code) => code.ClientHttpNotImplemented) && last?._tag === "status") {
    return httpFailureText(last)
  }
  return undefined
}
