/**
 * Transport choice: the SDK transport of a server entry (our stdio transport, the SDK's streamable
 * HTTP transport, its legacy HTTP+SSE transport, or an in-memory pair), the outgoing HTTP path (proxy
 * variables) and the record of what the HTTP server last answered, which start-up failures quote.
 */
import { Errors, Messages, ServerUrl } from "@mcp-resources/protocol"
import type {
  AuthProvider,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  Transport
} from "@modelcontextprotocol/client"
import { Config as EffectConfig, Effect, Option, type Runtime } from "effect"
import type { ServerEntry } from "../ServerEntry.js"
import type * as ScopeChallenges from "../ScopeChallenges.js"
import type * as TokenStore from "../TokenStore.js"
import { filterEventStream, type GatesStreams, type StreamGate } from "./notificationGate.js"
import { type AuthMark, connectionAuth, storelessAuth } from "./oauth.js"
import { type CredentialsError, loadCredentials } from "./oauthGrant.js"
import * as Sdk from "./sdk.js"
import { StdioTransport } from "./stdioTransport.js"

/** The transport kind of an entry, as `mcpServer/list` shows it. */
export const transportKind = (entry: ServerEntry): "stdio" | "http" | "memory" => entry.transport._tag

/** Which HTTP transport a connection speaks: streamable HTTP, or the legacy HTTP+SSE of 2024-11-05. */
export type HttpTransportKind = "streamable" | "sse"

/** The entry with `type = "sse"`: what a connection that fell back to HTTP+SSE is opened again with. */
export const asSse = (entry: ServerEntry): ServerEntry =>
  entry.transport._tag === "http" && entry.transport.sse !== true
    ? { ...entry, transport: { ...entry.transport, sse: true } }
    : entry

/**
 * The HTTP status codes of the first POST after which a client tries the legacy HTTP+SSE transport
 * on the same URL (the specification's backwards compatibility section, revision 2025-11-25).
 */
export const sseFallbackStatuses: ReadonlySet<number> = new Set([400, 404, 405])

/** What builds the SDK transport of an entry (the `McpTransport` service). */
export interface TransportFactory {
  readonly make: (entry: ServerEntry, stderr: (text: string) => void) => Effect.Effect<Transport, Errors.TransportError>
}

/** What an HTTP server answered last when it was not a usable MCP answer, or why it could not be reached. */
export type HttpFailure =
  | {
      readonly _tag: "status"
      readonly method: string
      readonly status: number
      readonly statusText: string
      readonly contentType: string
      readonly wwwAuthenticate: string
      readonly body: string
    }
  | { readonly _tag: "content"; readonly contentType: string }
  | {
      readonly _tag: "network"
      readonly method: string
      readonly target: string
      readonly code: string | undefined
      readonly message: string
    }

/** The HTTP answers of one connection, as far as start-up messages need them. */
export interface HttpTrace {
  last: HttpFailure | undefined
  /** An entry that may log in with OAuth: its name, whether a login is needed (no usable token), why its grant failed. */
  oauth?: AuthMark & { readonly server: string }
  /** The status of the last POST the server answered with a success (quoted when its body was unusable). */
  okStatus?: number
}

/** The SDK's streamable HTTP transport with the trace of its answers. */
export interface TracedHttpTransport extends StreamableHTTPClientTransport, GatesStreams {
  readonly trace: HttpTrace
}

/**
 * The SDK's HTTP+SSE transport with the trace of its answers. `start` (the GET that opens the stream,
 * done once the `endpoint` event arrived) may be called more than once: every call is the first one's
 * promise, so that the stream can be opened, bounded, before the client connects over it.
 */
export interface TracedSseTransport extends SSEClientTransport, GatesStreams {
  readonly trace: HttpTrace
}

/**
 * The class of {@link TracedHttpTransport} (it extends the SDK's transport, so it is made once the
 * SDK is loaded): the trace of its answers and the release of its agent.
 */
const tracedClass = (sdk: Sdk.Sdk["client"]) =>
  class extends sdk.StreamableHTTPClientTransport implements TracedHttpTransport {
    constructor(
      url: URL,
      headers: Record<string, string>,
      outgoing: { readonly fetch: FetchLike; readonly close: () => Promise<void> },
      readonly trace: HttpTrace = { last: undefined },
      auth?: { readonly authProvider: AuthProvider; readonly fetch?: (base: FetchLike) => FetchLike }
    ) {
      const streamGate: StreamGate = { sink: undefined }
      const traced = tracingFetch(outgoing.fetch, trace, { optionalGet: true, streamGate })
      super(url, {
        requestInit: { headers },
        fetch: auth?.fetch !== undefined ? auth.fetch(traced) : traced,
        ...(auth !== undefined ? { authProvider: auth.authProvider } : {})
      })
      this.releaseAgent = outgoing.close
      this.streamGate = streamGate
    }

    readonly streamGate: StreamGate
    private readonly releaseAgent: () => Promise<void>

    override close(): Promise<void> {
      return super.close().finally(() => this.releaseAgent())
    }
  }

// The class is made once per process, when the SDK module is loaded (`sdk.ts`): like the SDK's own
// classes it belongs to the module, and `instanceof` tells our transports apart by it.
let tracedHttp: ReturnType<typeof tracedClass> | undefined

/** The class of {@link TracedSseTransport} (made once the SDK is loaded, as {@link tracedClass}). */
const tracedSseClass = (sdk: Sdk.Sdk["client"]) =>
  class extends sdk.SSEClientTransport implements TracedSseTransport {
    constructor(
      url: URL,
      headers: Record<string, string>,
      outgoing: { readonly fetch: FetchLike; readonly close: () => Promise<void> },
      readonly trace: HttpTrace = { last: undefined },
      auth?: { readonly authProvider: AuthProvider; readonly fetch?: (base: FetchLike) => FetchLike }
    ) {
      // one fetch for the GET of the stream and the POSTs; `requestInit` headers go on both
      const streamGate: StreamGate = { sink: undefined }
      const traced = tracingFetch(outgoing.fetch, trace, { optionalGet: false, streamGate })
      super(url, {
        requestInit: { headers },
        fetch: auth?.fetch !== undefined ? auth.fetch(traced) : traced,
        ...(auth !== undefined ? { authProvider: auth.authProvider } : {})
      })
      this.releaseAgent = outgoing.close
      this.streamGate = streamGate
    }

    readonly streamGate: StreamGate
    private readonly releaseAgent: () => Promise<void>
    private started: Promise<void> | undefined

    override start(): Promise<void> {
      this.started ??= super.start()
      return this.started
    }

    override close(): Promise<void> {
      return super.close().finally(() => this.releaseAgent())
    }
  }

// made once per process when the SDK is loaded, as `tracedHttp`
let tracedSse: ReturnType<typeof tracedSseClass> | undefined

/** The transport as a {@link TracedSseTransport} when it was built here, else undefined. */
export const tracedSseTransport = (transport: Transport): TracedSseTransport | undefined =>
  tracedSse !== undefined && transport instanceof tracedSse ? transport : undefined

/** The HTTP transport a transport built here speaks (undefined for stdio, in-memory and hosts' own). */
export const httpTransportKind = (transport: Transport): HttpTransportKind | undefined =>
  tracedSseTransport(transport) !== undefined
    ? "sse"
    : tracedHttpTransport(transport) !== undefined
      ? "streamable"
      : undefined

/**
 * A new {@link TracedHttpTransport} or, with `sse`, {@link TracedSseTransport}: the SDK's, on this url
 * with these headers, tracing its answers.
 */
const makeTracedHttp = (
  sdk: Sdk.Sdk,
  sse: boolean,
  url: URL,
  headers: Record<string, string>,
  outgoing: { readonly fetch: FetchLike; readonly close: () => Promise<void> },
  trace?: HttpTrace,
  auth?: { readonly authProvider: AuthProvider; readonly fetch?: (base: FetchLike) => FetchLike }
): TracedHttpTransport | TracedSseTransport => {
  if (sse) {
    tracedSse ??= tracedSseClass(sdk.client)
    return new tracedSse(url, headers, outgoing, trace, auth)
  }
  tracedHttp ??= tracedClass(sdk.client)
  return new tracedHttp(url, headers, outgoing, trace, auth)
}

/** The transport as a {@link TracedHttpTransport} when it was built here, else undefined. */
export const tracedHttpTransport = (transport: Transport): TracedHttpTransport | undefined =>
  tracedHttp !== undefined && transport instanceof tracedHttp ? transport : undefined

/** The trace of an HTTP transport built here, streamable or SSE (undefined for any other transport). */
export const httpTrace = (transport: Transport): HttpTrace | undefined =>
  (tracedHttpTransport(transport) ?? tracedSseTransport(transport))?.trace

/** At most this much of an error body is kept. */
const maxBodyChars = 4096

/** The URL as messages show it: query values redacted, without fragment or credentials (`ServerUrl.redact`). */
export const displayUrl = (url: string | URL): string => ServerUrl.redact(url)

export const networkFailure = (method: string, target: string, error: unknown): HttpFailure => {
  // undici: TypeError("fetch failed") with the system error as its cause
  let cause: unknown = error
  while (cause instanceof Error && cause.cause !== undefined && (cause as { code?: unknown }).code === undefined) {
    cause = cause.cause
  }
  const code = (cause as { readonly code?: unknown } | undefined)?.code
  const message = cause instanceof Error ? cause.message : String(cause)
  return { _tag: "network", method, target, code: typeof code === "string" ? code : undefined, message }
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

/** Socket errors of a kept-alive connection that the server closed just as the request went out. */
const staleCodes = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"])

const causeCode = (error: unknown): string | undefined => {
  const code = (error as { readonly cause?: { readonly code?: unknown } } | undefined)?.cause?.code
  return typeof code === "string" ? code : undefined
}

/** A `tools/call` is never sent twice (the server may have run the tool); anything else may be. */
const resendable = (init: RequestInit | undefined): boolean =>
  typeof init?.body !== "string" || !init.body.includes('"tools/call"')

/**
 * Sends once more, at once, a request that failed with a socket error before any answer (the server
 * closed a kept-alive connection as the request was written to it), unless it is a `tools/call`.
 */
const withStaleRetry = (base: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<Response> =>
  base(url, init).catch((error: unknown) => {
    const code = causeCode(error)
    if (code === undefined || !staleCodes.has(code) || (init?.signal?.aborted ?? false) || !resendable(init)) {
      throw error
    }
    return base(url, init)
  })

/**
 * A fetch that records non-success answers (status, content type, `WWW-Authenticate`, the start of
 * the body) and network failures in `trace`; the response itself goes on unchanged. With
 * `optionalGet` (streamable HTTP), a GET answered 404 or 405 only means the server offers no stream
 * and is not recorded; the GET of HTTP+SSE is the connection itself.
 */
const tracingFetch =
  (
    base: FetchLike,
    trace: HttpTrace,
    { optionalGet, streamGate }: { readonly optionalGet: boolean; readonly streamGate: StreamGate }
  ): FetchLike =>
  (url, init) => {
    const method = init?.method ?? "GET"
    return withStaleRetry(base, url, init).then(
      (response) => {
        const contentType = response.headers.get("content-type") ?? ""
        if (!response.ok) {
          if (optionalGet && method === "GET" && (response.status === 404 || response.status === 405)) return response
          return response
            .clone()
            .text()
            .catch(() => "")
            .then((body) => {
              trace.last = {
                _tag: "status",
                method,
                status: response.status,
                statusText: response.statusText,
                contentType,
                wwwAuthenticate: response.headers.get("www-authenticate") ?? "",
                body: body.slice(0, maxBodyChars)
              }
              return response
            })
        }
        const essence = contentType.split(";")[0]!.trim().toLowerCase()
        const usable = response.status === 202 || essence === "application/json" || essence === "text/event-stream"
        if (method === "POST") trace.okStatus = response.status
        // a usable answer supersedes an earlier refusal (the probe of `auto` before `initialize`)
        if (method === "POST") trace.last = usable ? undefined : { _tag: "content", contentType: essence }
        // an event stream reaches the SDK without the notifications nothing handles and without the
        // change notifications, applied to the connection's queue here (a flood of them would each be
        // parsed and validated there)
        if (essence === "text/event-stream" && response.body !== null) {
          return new Response(filterEventStream(response.body, streamGate), {
            status: response.status,
            statusText: response.statusText,
            headers: response.headers
          })
        }
        return response
      },
      (error: unknown) => {
        if (!(init?.signal?.aborted ?? false)) trace.last = networkFailure(method, displayUrl(url), error)
        throw error
      }
    )
  }

/** The proxy variables, read through Effect's config (both spellings, the lower-case one first, as curl does). */
const proxySettings = Effect.gen(function* () {
  const read = (name: string) =>
    EffectConfig.option(EffectConfig.string(name)).pipe(Effect.orElseSucceed(() => Option.none<string>()))
  const first = (names: ReadonlyArray<string>) =>
    Effect.map(Effect.forEach(names, read), (values) => Option.getOrUndefined(Option.firstSomeOf(values)))
  return {
    httpProxy: yield* first(["http_proxy", "HTTP_PROXY"]),
    httpsProxy: yield* first(["https_proxy", "HTTPS_PROXY"]),
    noProxy: yield* first(["no_proxy", "NO_PROXY"])
  }
})

/**
 * The fetch of outgoing HTTP: Node's own without proxy variables; with `HTTPS_PROXY`/`HTTP_PROXY`
 * set, undici's fetch over an agent that honours them and `NO_PROXY`. Neither passes a `ca` option,
 * so certificates of `NODE_EXTRA_CA_CERTS` (which Node adds to its default store at start) stay
 * trusted. `close` releases the agent's sockets.
 */
export const outgoingFetch = Effect.gen(function* () {
  const settings = yield* proxySettings
  if (settings.httpProxy === undefined && settings.httpsProxy === undefined) {
    return { fetch: globalThis.fetch as FetchLike, close: () => Promise.resolve() }
  }
  // loaded only when a proxy is configured (most hosts never need it)
  const undici = yield* Effect.promise(() => import("undici"))
  const agent = new undici.EnvHttpProxyAgent({
    httpProxy: settings.httpProxy ?? "",
    httpsProxy: settings.httpsProxy ?? settings.httpProxy ?? "",
    noProxy: settings.noProxy ?? ""
  })
  const fetch: FetchLike = (url, init) =>
    undici.fetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>
  return { fetch, close: () => agent.close() }
})

const hostEnvironment = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  return env
}

const startupError = (message: string) => new Errors.TransportError({ kind: "startup", message })

const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : String(error)

/** The token store of the OAuth entries and the runtime its effects run on (absent: no store). */
export interface OAuthStore {
  readonly store: TokenStore.Service
  readonly runtime: Runtime.Runtime<never>
  /** Where a `403 insufficient_scope` is announced, when the host listens. */
  readonly challenges?: ScopeChallenges.Service
}

/** An HTTP entry logs in with OAuth unless it sends its own `Authorization` (a bearer variable or header). */
export const usesOAuth = (transport: ServerEntry["transport"]): boolean =>
  transport._tag === "http" &&
  transport.bearerTokenEnvVar === undefined &&
  !Object.keys(transport.httpHeaders).some((name) => name.toLowerCase() === "authorization")

/** The secret of `oauth_client_secret_env_var`, read through Effect's config. */
export const oauthClient = (
  transport: Extract<ServerEntry["transport"], { _tag: "http" }>
): Effect.Effect<{ clientId: string; clientSecret?: string } | undefined, Errors.TransportError> =>
  Effect.gen(function* () {
    if (transport.oauthClientId === undefined) return undefined
    const variable = transport.oauthClientSecretEnvVar
    if (variable === undefined) return { clientId: transport.oauthClientId }
    const secret = yield* EffectConfig.option(EffectConfig.string(variable)).pipe(
      Effect.orElseSucceed(() => Option.none<string>())
    )
    if (Option.isNone(secret)) {
      return yield* Effect.fail(startupError(Messages.oauth.variableNotSet(variable, "the OAuth client secret")))
    }
    return { clientId: transport.oauthClientId, clientSecret: secret.value }
  })

/** Builds the SDK transport of an entry (not started yet): stdio, streamable HTTP, HTTP+SSE or in-memory. */
export const makeTransport = (
  entry: ServerEntry,
  stderr: (text: string) => void,
  oauth?: OAuthStore
): Effect.Effect<Transport, Errors.TransportError> => {
  const transport = entry.transport
  switch (transport._tag) {
    case "stdio":
      return Effect.sync(
        () =>
          new StdioTransport({
            command: transport.command,
            args: transport.args,
            env: { ...hostEnvironment(), ...transport.env },
            ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
            maxMessageBytes: entry.maxMessageBytes,
            stderr
          })
      )
    case "http":
      return Effect.gen(function* () {
        const headers: Record<string, string> = { ...transport.httpHeaders }
        if (transport.bearerTokenEnvVar !== undefined) {
          const variable = transport.bearerTokenEnvVar
          const token = yield* EffectConfig.option(EffectConfig.string(variable)).pipe(
            Effect.orElseSucceed(() => Option.none<string>())
          )
          if (Option.isNone(token)) {
            return yield* Effect.fail(startupError(`environment variable ${variable} for the bearer token is not set`))
          }
          headers.Authorization = `Bearer ${token.value}`
        }
        // an OAuth entry's configured credentials, read first (a missing one fails the start-up)
        const client = usesOAuth(transport) ? yield* oauthClient(transport) : undefined
        const grant = usesOAuth(transport)
          ? yield* loadCredentials(transport).pipe(
              Effect.mapError((error: CredentialsError) => startupError(error.message))
            )
          : undefined
        const outgoing = yield* outgoingFetch
        const sdk = yield* Sdk.load
        const url = new URL(transport.url)
        const sse = transport.sse === true
        if (!usesOAuth(transport)) return makeTracedHttp(sdk, sse, url, headers, outgoing)
        const mark = { server: entry.name, required: false, interactive: transport.oauthGrant === undefined }
        const trace: HttpTrace = { last: undefined, oauth: mark }
        const auth =
          oauth === undefined
            ? { authProvider: storelessAuth(sdk.client, entry.name, mark) }
            : connectionAuth(
                {
                  key: { server: entry.name, url: transport.url },
                  store: oauth.store,
                  runtime: oauth.runtime,
                  ...(client !== undefined ? { client } : {}),
                  ...(grant !== undefined ? { grant } : {}),
                  ...(oauth.challenges !== undefined ? { challenges: oauth.challenges } : {})
                },
                url,
                outgoing.fetch,
                mark,
                sdk.client
              )
        return makeTracedHttp(sdk, sse, url, headers, outgoing, trace, auth)
      })
    case "memory":
      return Effect.tryPromise({
        try: () => transport.connect(),
        catch: (error) => startupError(errorMessage(error))
      })
  }
}
