/**
 * The wire of the app-server protocol in one place: line framing (`LineSplitter`, `WriteBatcher`, the
 * 8 MiB cap), the depth guard on params, the compiled codecs of params and results (each schema
 * compiled once, here) and, inside `encodeResult`, the fast encoders of the hottest results
 * (`internal/fastPaths.ts`). The server, the typed client and
 * the bench frame, decode and encode through this module (a process that only frames lines imports
 * `LineFramer`, which loads nothing else); the schemas themselves are `AppServer`.
 */
export {
  type Codec,
  decodeParams,
  decodeWith,
  decoder,
  type Excess,
  encodeResult,
  encoder
} from "./internal/wire/codecs.js"
export { maxParamsDepth, tooDeep } from "./internal/wire/codecs.js"
export { type Frame, LineSplitter, maxLineBytes, WriteBatcher } from "./LineFramer.js"
export { formatParamsError } from "./internal/wire/parseError.js"
