/**
 * Effect's default logger replaced by one that writes to standard error (never standard output) at the
 * level of `MCP_RESOURCES_LOG` (`error|warn|info|debug`, default `info`). Its own module, so that the
 * CLI's tools commands do not load the server's layers (persistence, transports) to log.
 */
import { Config, Effect, Layer, Logger, LogLevel } from "effect"

const levels = { error: LogLevel.Error, warn: LogLevel.Warning, info: LogLevel.Info, debug: LogLevel.Debug } as const

/** `MCP_RESOURCES_LOG`, `info` when unset or not a level. */
const configuredLevel = Config.literal(
  "error",
  "warn",
  "info",
  "debug"
)("MCP_RESOURCES_LOG").pipe(
  Config.withDefault("info" as const),
  Effect.orElseSucceed(() => "info" as const)
)

/** Logs to standard error (never standard output), at the level of `MCP_RESOURCES_LOG`. */
export const loggerLayer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(configuredLevel, (level) =>
    Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
      Logger.minimumLogLevel(levels[level])
    )
  )
)

/**
 * {@link loggerLayer} less the lines `drop` picks (given the message text): the CLI drops warnings that
 * repeat a cause already warned about.
 */
export const loggerLayerWithout = (drop: (message: string) => boolean): Layer.Layer<never> => {
  const base = Logger.withConsoleError(Logger.logfmtLogger)
  const filtered = Logger.make<unknown, void>((options) => {
    const message = options.message
    const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
    if (!drop(text)) base.log(options)
  })
  return Layer.unwrapEffect(
    Effect.map(configuredLevel, (level) =>
      Layer.merge(Logger.replace(Logger.defaultLogger, filtered), Logger.minimumLogLevel(levels[level]))
    )
  )
}
