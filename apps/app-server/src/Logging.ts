/**
 * Effect's default logger replaced by one that writes to standard error (never standard output) at the
 * level of `MCP_RESOURCES_LOG` (`error|warn|info|debug`, default `info`). Its own module, so that the
 * CLI's tools commands do not load the server's layers (persistence, transports) to log.
 */
import { Config, Effect, Layer, Logger, LogLevel } from "effect"

const levels = { error: LogLevel.Error, warn: LogLevel.Warning, info: LogLevel.Info, debug: LogLevel.Debug } as const

/** Logs to standard error (never standard output), at the level of `MCP_RESOURCES_LOG`. */
export const loggerLayer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const level = yield* Config.literal(
      "error",
      "warn",
      "info",
      "debug"
    )("MCP_RESOURCES_LOG").pipe(
      Config.withDefault("info" as const),
      Effect.orElseSucceed(() => "info" as const)
    )
    return Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
      Logger.minimumLogLevel(levels[level])
    )
  })
)
