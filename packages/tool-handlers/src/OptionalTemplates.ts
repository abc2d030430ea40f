/**
 * `resources/templates/list` is optional: servers of the SDK 1.0 era (server-postgres, …) declare
 * `resources` but answer it with JSON-RPC `-32601` (method not found). Such a server has no templates;
 * it has not failed. The extended profile (and the CLI's readable form) lists no templates for it; the
 * codex profile keeps reporting the failure, byte for byte.
 */
import { Errors, Messages, type Mcp } from "@mcp-resources/protocol"
import type { ResourceClient } from "@mcp-resources/resource-client"
import { Effect } from "effect"

/** JSON-RPC "method not found". */
export const methodNotFound = -32601

/** The start of the message chain of a server's `-32601` answer to `resources/templates/list`. */
const unimplementedChain = (server: string): string =>
  `${Messages.requestContext["resources/templates/list"](server)}: ${Errors.serverError(methodNotFound, "").message}`

/** True when `error` (a failure's message chain) is the server's `-32601` answer to `resources/templates/list`. */
export const isUnimplemented = (server: string, error: string): boolean => error.startsWith(unimplementedChain(server))

/**
 * True when a codex `list_mcp_resource_templates` output for one server is the failure of a server
 * that does not implement the method.
 */
export const isUnimplementedOutput = (server: string, output: string): boolean =>
  output.startsWith(Messages.toolFailure.templates(unimplementedChain(server)))

/** An all-servers template list in which a server that does not implement the method is no failure. */
export const dropUnimplemented = <A>(result: ResourceClient.AggregateResult<A>): ResourceClient.AggregateResult<A> => {
  const failures = result.failures.filter((failure) => !isUnimplemented(failure.server, failure.error))
  return failures.length === result.failures.length ? result : { ...result, failures }
}

/** One server's template page: a server that does not implement the method has an empty one. */
export const emptyWhenUnimplemented = <E extends Errors.ResourceFailure, R>(
  server: string,
  page: Effect.Effect<Mcp.ListResourceTemplatesResult, E, R>
): Effect.Effect<Mcp.ListResourceTemplatesResult, E, R> =>
  Effect.catchIf(
    page,
    (error) => error._tag === "ServerError" && error.code === methodNotFound && isUnimplemented(server, error.message),
    () => Effect.succeed<Mcp.ListResourceTemplatesResult>({ resourceTemplates: [] })
  )
