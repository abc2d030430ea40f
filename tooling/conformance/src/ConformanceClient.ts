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

/** What a scenario hands the client (`MCP_CONFORMANCE_CONTEXT`): a pre-registered client, for one. */
export interface ScenarioContext {
  readonly client_id?: string
  readonly client_secret?: string
}

/** The variable the client secret of a pre-registered client is put in (`oauth_client_secret_env_var`). */
export const secretVariable = "CONFORMANCE_OAUTH_CLIENT_SECRET"

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
            ...(context.client_id !== undefined ? { oauth_client_id: context.client_id } : {}),
            ...(context.client_secret !== undefined ? { oauth_client_secret_env_var: secretVariable } : {})
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
        // a server that asks for OAuth: log in as a user would (`mcp-resources login`), the browser
        // step scripted (the suite's authorization server approves at once), then connect again
        if (Option.isSome(status) && status.value.error === Messages.authorizationRequired(serverName)) {
          const entry = config.mcpServers[0]!
          yield* Effect.scoped(
            Effect.gen(function* () {
              const start = yield* OAuth.startLogin(entry, { timeoutSec: 15 })
              yield* Effect.logInfo("login: following the authorization URL")
              if (start.authorizationUrl !== "") yield* followAuthorization(start.authorizationUrl)
              yield* start.completion
            })
          ).pipe(Effect.mapError((error) => new ConformanceClientError({ message: error.message })))
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
        for (const [index, spec] of tools.entries()) {
          const args = argumentsFor(spec.parameters)
          if (Option.isNone(args)) {
            yield* Effect.logInfo(`${spec.name}: not called (a required parameter has a type we cannot make up)`)
            continue
          }
          const call = { callId: `call-${index + 1}`, name: spec.name, arguments: JSON.stringify(args.value) }
          const { output, success } = yield* ToolHandlers.callTool(ctx, call)
          yield* Effect.logInfo(`${spec.name}(${call.arguments}) -> ${success ? "ok" : "failed"}: ${output}`)
          calls.push({ name: spec.name, arguments: call.arguments, output, success })
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
