/** Why an aborted call rejects: the signal's reason, or an `AbortError` when it gave none. */
export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? Object.assign(new Error("The tool call was aborted"), { name: "AbortError" })
