import { Config, Effect, Option, Redacted } from "effect"
import { storage, type ThreadStoreError } from "./error.js"

/**
 * The PostgreSQL url of the `[persistence]` settings: `url`, else the `DATABASE_URL` environment
 * variable (read through `Config`); neither fails with `context` and what is missing.
 */
export const pgUrl = (
  options: { readonly url?: string | undefined },
  context: string
): Effect.Effect<string | Redacted.Redacted, ThreadStoreError> =>
  Effect.gen(function* () {
    if (options.url !== undefined && options.url !== "") return options.url
    const fromEnv = yield* Config.option(Config.redacted("DATABASE_URL")).pipe(
      Effect.mapError((e) => storage("cannot read DATABASE_URL", e.message))
    )
    if (Option.isSome(fromEnv) && Redacted.value(fromEnv.value) !== "") return fromEnv.value
    return yield* Effect.fail(
      storage(context, '[persistence] driver = "postgres" needs `url` or the DATABASE_URL environment variable')
    )
  })
