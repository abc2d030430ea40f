/** The command-line options the server was started with, as a service (the reload re-reads `configPath`). */
import { Context, Layer } from "effect"
import type { ServerOptions } from "./internal/args.js"

export type { ListenAddress, ServerOptions, TlsFiles, TransportLimits } from "./internal/args.js"
export { defaultLimits, flags, isLoopback, parseArgs, UsageError, usage } from "./internal/args.js"

/** The AppOptions tag. Layer: `layer(options)`. */
export class AppOptions extends Context.Tag("@mcp-resources/app-server/AppOptions")<AppOptions, ServerOptions>() {}

/** Provides the given options. */
export const layer = (options: ServerOptions): Layer.Layer<AppOptions> => Layer.succeed(AppOptions, options)
