/**
 * The tool catalog of a connection: collected at startup with the pagination guard
 * (resource-tools.md 2.3) and again on `notifications/tools/list_changed`.
 */
import { Errors, Mcp, Messages } from "@mcp-resources/protocol"
import { Effect } from "effect"
import * as Pagination from "../Pagination.js"
import type { ServerEntry } from "../ServerEntry.js"
import type { Connection } from "./connection.js"
import { decodeResult, millis } from "./request.js"

/** Collects the tool catalog of a connection with the pagination guard (resource-tools.md 2.3). */
export const collectTools = (
  connection: Connection,
  entry: ServerEntry
): Effect.Effect<ReadonlyArray<Mcp.Tool>, Errors.ResourceFailure> => {
  if (!connection.capabilities.tools) return Effect.succeed([])
  const timeout = millis(entry.toolTimeoutSec)
  return Pagination.collectPaginated({
    method: "tools/list",
    timeout,
    pagesBounded: true,
    fetchPage: (cursor, remainingMillis) =>
      connection.request("tools/list", cursor === undefined ? undefined : { cursor }, remainingMillis).pipe(
        Effect.flatMap(decodeResult(Mcp.ListToolsResult, "tools/list")),
        Effect.map((page) => ({ items: page.tools, nextCursor: page.nextCursor })),
        Effect.mapError((error) => Errors.withContext(error, Messages.requestContext["tools/list"](entry.name)))
      )
  })
}

/** {@link collectTools}, or no tools (with a warning) when collecting fails. */
export const collectToolsOrNone = (connection: Connection, entry: ServerEntry) =>
  collectTools(connection, entry).pipe(
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logWarning(`Failed to collect tools of MCP server '${entry.name}': ${error.message}`),
        [] as ReadonlyArray<Mcp.Tool>
      )
    )
  )

/**
 * The catalog at start-up: {@link collectToolsOrNone}, except that a server that answered
 * `initialize` without a token but wants one for `tools/list` fails its start-up with
 * `authorization required …` (nothing of it works before a login).
 */
export const collectToolsAtStartup = (
  connection: Connection,
  entry: ServerEntry
): Effect.Effect<ReadonlyArray<Mcp.Tool>, Errors.TransportError> => {
  const required = Messages.authorizationRequired(entry.name)
  return collectTools(connection, entry).pipe(
    Effect.catchAll((error) =>
      error.message.endsWith(required)
        ? Effect.fail(new Errors.TransportError({ kind: "startup", message: required }))
        : Effect.as(
            Effect.logWarning(`Failed to collect tools of MCP server '${entry.name}': ${error.message}`),
            [] as ReadonlyArray<Mcp.Tool>
          )
    )
  )
}
