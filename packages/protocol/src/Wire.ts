/**
 * The wire of the app-server protocol in one place: line framing (`LineSplitter`, `WriteBatcher`, the
 * 8 MiB cap), the depth guard on params, the compiled codecs of params and results (a codec set,
 * `makeCodecs`, held by the server and by each client, compiles each schema once) and, inside its
 * `encodeResult`, the fast encoders of the hottest results (`internal/fastPaths.ts`). The server, the
 * typed client and the bench frame, decode and encode through this module (a process that only frames lines imports
 * `LineFramer`, which loads nothing else); the schemas themselves are `AppServer`.
 */
export {
  type Codec,
  type Codecs,
  compileDecoder,
  compileEncoder,
  decodeParams,
  decodeWith,
  type Excess,
  makeCodecs
} from "./internal/wire/codecs.js"
export { maxParamsDepth, tooDeep } from "./internal/wire/codecs.js"
export { type Frame, LineSplitter, maxLineBytes, WriteBatcher } from "./LineFramer.js"
export { formatParamsError } from "./internal/wire/parseError.js"
