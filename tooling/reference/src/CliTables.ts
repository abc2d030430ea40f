/**
 * The command-line reference of `docs/cli.md` (and the command list of `docs/installing.md`), rendered
 * from the flags and commands the two programs parse, so that a flag `--help` prints is never missing
 * from the docs, nor listed twice.
 */
import * as AppOptions from "@mcp-resources/app-server/AppOptions"
import * as CliCommands from "@mcp-resources/app-server/CliCommands"
import * as CommandLine from "@mcp-resources/app-server/CommandLine"
import { inlineCode, table } from "./Markdown.js"

/** A description with its `docs/NAME.md` mentions as links (the pages are siblings of `cli.md`). */
const linked = (text: string): string => text.replace(/\bdocs\/([\w-]+\.md)\b/g, "[$1]($1)").replaceAll("|", "\\|")

const optionCell = (option: CommandLine.Option): string =>
  [CommandLine.synopsis(option), ...(option.alias === undefined ? [] : [option.alias])].map(inlineCode).join(", ")

/** The app-server's flags: one row each, in the order `--help` prints them. */
export const serverFlags = (): string =>
  table(
    ["flag", "meaning"],
    AppOptions.flags.map((flag) => [optionCell(flag), linked(flag.description)] as const)
  )

/** The CLI's commands: one row per form. */
export const commands = (): string =>
  table(
    ["command", "what it does"],
    CliCommands.formLines().map((line) => [inlineCode(`mcp-resources ${line.form}`), linked(line.summary)] as const)
  )

/** The CLI's options, each with the commands that take it. */
export const options = (): string =>
  table(
    ["option", "meaning"],
    CliCommands.allOptions.map((option) => {
      const takers = CliCommands.commands.filter((command) => command.options.includes(option)).map((c) => c.name)
      const where = option.name === "--help" ? "every command" : takers.map((name) => inlineCode(name)).join(", ")
      return [optionCell(option), `${linked(option.description)} (${where})`] as const
    })
  )

/** The CLI's exit codes. */
export const exitCodes = (): string =>
  table(
    ["exit code", "meaning"],
    CliCommands.exitCodes.map((exit) => [inlineCode(String(exit.code)), linked(exit.meaning)] as const)
  )
