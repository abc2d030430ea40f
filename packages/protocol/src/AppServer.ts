/**
 * The app-server wire contract (app-server-protocol.md): JSON-RPC error codes and messages, and the
 * params, results and notifications of every method. Framing and the error mapping live in the app.
 */


/** JSON-RPC error codes used by the app-server. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
  requestCancelled: -32800
} as const
