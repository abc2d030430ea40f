/**
 * `mcp-resources search QUERY [--server S] [--limit N]`: the search of `ResourceSearch` over every
 * configured server's resources and templates (issue #45). Prints the ranked matches (`--json`: the
 * `mcp/resource/search` result), then the servers still indexing or failed on standard error.
 */
import type { Config } from "@mcp-resources/protocol"
import { ResourceClient } from "@mcp-resources/resource-client"
import { ResourceSearch } from "@mcp-resources/tool-handlers"
import { Console, Effect } from "effect"
import { type Command, partialFailureExitCode } from "../CliCommands.js"
import { clientLayer, setupFor } from "./setup.js"

/** The `search` command. */
export type SearchCommand = Extract<Command, { _tag: "search" }>

/** The readable form: one numbered block per match (`server  uri  score`, then title and description). */
export const readable = (result: ResourceSearch.Result): string => {
  if (result.matches.length === 0) return "(no matches)"
  return result.matches
    .map((match, i) => {
      const target = match.uri ?? `${match.uriTemplate ?? ""} (template)`
      const head = `${i + 1}. ${match.server}  ${target}  ${match.score}`
      const label = [match.title ?? match.name, match.mimeType].filter((s) => s !== undefined).join("  ")
      const lines = [head, `   ${label}`]
      if (match.description !== undefined) lines.push(`   ${match.description}`)
      return lines.join("\n")
    })
    .join("\n")
}

/** The servers still indexing and those that failed, one line each. */
const notes = (result: ResourceSearch.Result): ReadonlyArray<string> => [
  ...result.indexing.map((server) => `still indexing: ${server}`),
  ...result.failures.map((failure) => `not searched: ${failure.server}: ${failure.error}`),
  ...result.truncated.map((server) => `cut at [search] max_resources: ${server}`)
]

/** Runs `search`; its exit code (1: a refused argument; partial failure: a server could not be searched). */
export const run = (command: SearchCommand, config: Config.Config) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* ResourceClient.ResourceClient
      const search = yield* ResourceSearch.make({ updates: client.updates })
      const set = yield* client.acquire
      yield* set.awaitAllSettled
      const answer = yield* Effect.either(
        search.search(
          { set, config, orchestratorMcpEnabled: config.orchestrator.mcpEnabled, truncation: config.truncation },
          {
            query: command.query,
            ...(command.server !== undefined ? { server: command.server } : {}),
            ...(command.limit !== undefined ? { limit: command.limit } : {})
          }
        )
      )
      if (answer._tag === "Left") {
        yield* Console.error(`mcp-resources: ${answer.left.message}`)
        return 1
      }
      const result = answer.right
      yield* Console.log(command.json ? JSON.stringify(result) : readable(result))
      const lines = notes(result)
      if (lines.length > 0) yield* Console.error(lines.join("\n"))
      return result.failures.length > 0 || result.indexing.length > 0 ? partialFailureExitCode : 0
    })
  ).pipe(Effect.provide(clientLayer(setupFor(config, command.server), command.dataDir)))
