/**
 * What the conformance client does against one scenario's server, through the public API of our
 * packages only: the resource client connects (initialize, first `tools/list`) to a streamable HTTP
 * entry, and the tool handlers list the model-visible tools and call each one as a model would.
 */
import { Config, Messages } from "@mcp-resources/protocol"
import {
  McpTransport,
  OAuth,
  ResourceClient,
  ServerEntry,
  ServerRequests,
  TokenStore
} from "@mcp-resources/resource-client"
import { LifecycleSink, ToolHandlers } from "@mcp-resources/tool-handlers"
import { Data, Effect, Either, Layer, Option } from "effect"

/** The name of the one server entry; its tools are `mcp__conformance__{tool}`. */
export const serverName = "conformance"

/** The client could not do what the scenario asks: the reason, as the user of our packages would see it. */
export class ConformanceClientError extends Data.TaggedError("ConformanceClientError")<{
  readonly message: string
}> {}

/** One tool call the client made and what the model would have read. */
export interface ToolCallOutcome {
  readonly name: string
  readonly arguments: string
  readonly output: string
  readonly success: boolean
}

/** What happened against the server: the model-visible tools and every call made. */
export interface Outcome {
  readonly tools: ReadonlyArray<string>
  readonly calls: ReadonlyArray<ToolCallOutcome>
}

type JsonSchema = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Arguments a model would plausibly send for a tool's parameter schema: every required property gets
 * a value of its type (numbers count up from 2, so `add_numbers` gets `{"a":2,"b":3}`); optional ones
 * are left out. `None` when a required property has a type this client cannot make up.
 */
export const argumentsFor = (parameters: JsonSchema): Option.Option<Record<string, unknown>> => {
  const properties = isObject(parameters.properties) ? parameters.properties : {}
  const required = Array.isArray(parameters.required)
    ? parameters.required.filter((key): key is string => typeof key === "string")
    : []
  const args: Record<string, unknown> = {}
  let nextNumber = 2
  for (const key of required) {
    const property = properties[key]
    const type = isObject(property) ? property.type : undefined
    if (type === "number" || type === "integer") args[key] = nextNumber++
    else if (type === "string") args[key] = "conformance"
    else if (type === "boolean") args[key] = true
    else return Option.none()
  }
  return Option.some(args)
}

/**
 * The content a user who accepts a form as offered sends: every property's `default` (SEP-1034), of
 * the kinds elicitation allows (string, number, boolean, string array).
 */
export const formDefaults = (
  params: Readonly<Record<string, unknown>>
): Record<string, string | number | boolean | ReadonlyArray<string>> => {
  const schema = isObject(params.requestedSchema) ? params.requestedSchema : {}
  const properties = isObject(schema.properties) ? schema.properties : {}
  const content: Record<string, string | number | boolean | ReadonlyArray<string>> = {}
  for (const [key, property] of Object.entries(properties)) {
    const value = isObject(property) ? property.default : undefined
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") content[key] = value
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) content[key] = value
  }
  return content
}

/** The host's answer to every elicitation: a form is accepted with its defaults, a URL is declined. */
const serverRequests = ServerRequests.layer({
  elicitation: {
    handle: (request) =>
      Effect.succeed<ServerRequests.ElicitationResult>(
        request.params.mode === "url"
          ? { action: "decline" }
          : { action: "accept", content: formDefaults(request.params) }
      )
  }
})

/**
 * What a scenario hands the client (`MCP_CONFORMANCE_CONTEXT`), as a deployment would provision it:
 * a pre-registered client (id, secret or private key), or the enterprise IdP and the user's ID token.
 */
export interface ScenarioContext {
  /** The scenario's name. */
  readonly name?: string
  readonly client_id?: string
  readonly client_secret?: string
  /** A `client_credentials` client that authenticates with a signed assertion (`private_key_jwt`). */
  readonly private_key_pem?: string
  /** Cross-app access: the client at the enterprise IdP, its token endpoint and the user's ID token. */
  readonly idp_client_id?: string
  readonly idp_token_endpoint?: string
  readonly idp_id_token?: string
}

/** The variable the client secret of a pre-registered client is put in (`oauth_client_secret_env_var`). */
export const secretVariable = "CONFORMANCE_OAUTH_CLIENT_SECRET"
/** The variable the private key is put in (`oauth_private_key_env_var`). */
export const privateKeyVariable = "CONFORMANCE_OAUTH_PRIVATE_KEY"
/** The variable the enterprise IdP's ID token is put in (`oauth_idp_id_token_env_var`). */
export const idTokenVariable = "CONFORMANCE_IDP_ID_TOKEN"

/**
 * The URL of this client's metadata document (`oauth_client_metadata_url`): the one the suite
 * expects as the client id where its authorization server accepts metadata documents.
 */
export const clientMetadataUrl = "https://conformance-test.local/client-metadata.json"

/**
 * The OAuth keys a deployment would write for what the scenario provisioned: an ID token of an
 * enterprise IdP means cross-app access (`enterprise`); a private key, or a client secret given for a
 * machine-to-machine scenario (the context alone does not tell that from a pre-registered client of
 * a browser login), means `client_credentials`; anything else logs in in a browser, with the
 * pre-registered client if there is one, else the metadata document or dynamic registration.
 */
export const oauthKeysFor = (context: ScenarioContext): Record<string, unknown> => {
  const client = context.client_id !== undefined ? { oauth_client_id: context.client_id } : {}
  const secret = context.client_secret !== undefined ? { oauth_client_secret_env_var: secretVariable } : {}
  if (context.idp_id_token !== undefined && context.idp_token_endpoint !== undefined) {
    return {
      oauth_grant: "enterprise",
      ...client,
      ...secret,
      oauth_idp_token_endpoint: context.idp_token_endpoint,
      oauth_idp_client_id: context.idp_client_id ?? "",
      oauth_idp_id_token_env_var: idTokenVariable
    }
  }
  if (context.private_key_pem !== undefined) {
    return {
      oauth_grant: "client_credentials",
      oauth_client_auth: "private_key_jwt",
      ...client,
      oauth_private_key_env_var: privateKeyVariable
    }
  }
  if (context.client_secret !== undefined && context.name?.startsWith("auth/client-credentials") === true) {
    return { oauth_grant: "client_credentials", oauth_client_auth: "client_secret_basic", ...client, ...secret }
  }
  return { ...client, ...secret, oauth_client_metadata_url: clientMetadataUrl }
}

/** The config of the one HTTP entry, through the same decoder as a config file. */
const configFor = (url: string, context: ScenarioContext): Effect.Effect<Config.Config, ConformanceClientError> =>
  Either.match(
    Config.decode(
      {
        mcp_servers: {
          [serverName]: {
            url,
            startup_timeout_sec: 15,
            tool_timeout_sec: 15,
            ...oauthKeysFor(context)
          }
        }
      },
      url
    ),
    {
      onLeft: (error) => Effect.fail(new ConformanceClientError({ message: error.message })),
      onRight: Effect.succeed
    }
  )

/**
 * Connects to `url`, lists the tools and calls each one whose arguments can be made up. Fails when
 * the server does not become ready or a tool call does not succeed.
 */
export const run = (url: string, context: ScenarioContext = {}): Effect.Effect<Outcome, ConformanceClientError> =>
  Effect.gen(function* () {
    const config = yield* configFor(url, context)
    const store = TokenStore.layerMemory
    const outcome = yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* ResourceClient.ResourceClient
        let set = yield* client.acquire
        let status = yield* set.awaitSettled(serverName)
        const entry = config.mcpServers[0]!
        // a login as a user would (`mcp-resources login`), the browser step scripted (the suite's
        // authorization server approves at once)
        const login = Effect.scoped(
          Effect.gen(function* () {
            const start = yield* OAuth.startLogin(entry, { timeoutSec: 15 })
            yield* Effect.logInfo("login: following the authorization URL")
            if (start.authorizationUrl !== "") yield* followAuthorization(start.authorizationUrl)
            yield* start.completion
          })
        ).pipe(Effect.mapError((error) => new ConformanceClientError({ message: error.message })))
        // a server that asks for OAuth: log in, then connect again
        if (Option.isSome(status) && status.value.error === Messages.authorizationRequired(serverName)) {
          yield* login
          yield* client.reconnect
          set = yield* client.acquire
          status = yield* set.awaitSettled(serverName)
        }
        if (Option.isNone(status) || status.value.status !== "ready") {
          const detail = Option.match(status, {
            onNone: () => "is not in the connection set",
            onSome: (s) => `is ${s.status}${s.error === undefined ? "" : `: ${s.error}`}`
          })
          return yield* new ConformanceClientError({ message: `server '${serverName}' ${detail}` })
        }
        const ctx: ToolHandlers.ToolContext = {
          set,
          config,
          orchestratorMcpEnabled: true,
          truncation: config.truncation
        }
        const prefix = `mcp__${serverName}__`
        const tools = (yield* ToolHandlers.listTools(ctx)).filter((spec) => spec.name.startsWith(prefix))
        yield* Effect.logInfo(`tools: ${tools.map((spec) => spec.name).join(", ") || "(none)"}`)
        const calls: Array<ToolCallOutcome> = []
        const call = (callId: string, name: string, args: string) =>
          Effect.gen(function* () {
            const { output, success } = yield* ToolHandlers.callTool(ctx, { callId, name, arguments: args }).pipe(
              // the items go to a sink that keeps nothing; should one fail, the scenario fails with it
              Effect.mapError((error) => new ConformanceClientError({ message: error.message }))
            )
            yield* Effect.logInfo(`${name}(${args}) -> ${success ? "ok" : "failed"}: ${output}`)
            return { name, arguments: args, output, success }
          })
        for (const [index, spec] of tools.entries()) {
          const args = argumentsFor(spec.parameters)
          if (Option.isNone(args)) {
            yield* Effect.logInfo(`${spec.name}: not called (a required parameter has a type we cannot make up)`)
            continue
          }
          calls.push(yield* call(`call-${index + 1}`, spec.name, JSON.stringify(args.value)))
        }
        // scope step-up: a server that refused calls for want of scopes (`requiredScopes` in
        // `mcpServer/list`) gets one more login asking for them, and the refused calls are made again
        // (once: a server that keeps asking is not logged in to in a loop)
        const required = yield* OAuth.requiredScopes(entry)
        if (required.length > 0 && calls.some((c) => !c.success)) {
          yield* Effect.logInfo(`scope step-up: the server requires ${required.join(" ")}`)
          yield* login
          for (const [index, failed] of calls.entries()) {
            if (!failed.success) calls[index] = yield* call(`retry-${index + 1}`, failed.name, failed.arguments)
          }
        }
        return { tools: tools.map((spec) => spec.name), calls }
      })
    ).pipe(
      Effect.provide([
        ResourceClient.layerWith(ServerEntry.fromConfig(config)).pipe(
          Layer.provide(McpTransport.layer),
          Layer.provide(serverRequests)
        ),
        LifecycleSink.layerNoop
      ]),
      Effect.provide(store)
    )
    const failed = outcome.calls.filter((call) => !call.success)
    if (failed.length > 0) {
      return yield* new ConformanceClientError({
        message: failed.map((call) => `${call.name} failed: ${call.output}`).join("; ")
      })
    }
    return outcome
  })

/** The browser: follows the authorization URL and its redirects to the client's loopback listener. */
const followAuthorization = (authorizationUrl: string): Effect.Effect<void, ConformanceClientError> =>
  Effect.tryPromise({
    try: async () => {
      let next = authorizationUrl
      for (let hop = 0; hop < 10; hop++) {
        const response = await fetch(next, { redirect: "manual" })
        await response.body?.cancel()
        const location = response.headers.get("location")
        if (response.status < 300 || response.status >= 400 || location === null) return
        next = new URL(location, next).href
      }
    },
    catch: (error) => new ConformanceClientError({ message: `the browser step failed: ${String(error)}` })
  })
