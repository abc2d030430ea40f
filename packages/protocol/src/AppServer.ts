/**
 * The app-server wire contract (app-server-protocol.md): JSON-RPC error codes and messages, and the
 * params, results and notifications of every method, one file per method group under
 * `internal/methods/`. How messages are framed, decoded and encoded is the `Wire` module; the mapping
 * of failures to errors lives in the app.
 */
export * from "./internal/methods/jsonRpc.js"
export * from "./internal/methods/initialize.js"
export * from "./internal/methods/threads.js"
export * from "./internal/methods/turns.js"
export * from "./internal/methods/tools.js"
export * from "./internal/methods/resources.js"
export * from "./internal/methods/resourceSearch.js"
export * from "./internal/methods/widgets.js"
export * from "./internal/methods/configReload.js"
export * from "./internal/methods/mcpServers.js"
export * from "./internal/methods/skills.js"
export * from "./internal/methods/elicitation.js"
export * from "./internal/methods/tables.js"
// The wire's limits and params codec, also exported by `Wire` (their home), kept here for importers.
export { decodeParams, decodeWith } from "./internal/wire/codecs.js"
export { maxParamsDepth, tooDeep } from "./internal/wire/codecs.js"
export { maxLineBytes } from "./LineFramer.js"
export { formatParamsError } from "./internal/wire/parseError.js"
