import { Schema } from "effect"

/** Why a thread-store operation failed: unknown thread, a lost optimistic race, or the storage itself. */
export const ThreadStoreErrorReason = Schema.Literal("notFound", "conflict", "storage")

/** A failed thread-store operation; `message` is the whole message chain (never a connection string). */
export class ThreadStoreError extends Schema.TaggedError<ThreadStoreError>()("ThreadStoreError", {
  reason: ThreadStoreErrorReason,
  message: Schema.String
}) {}

/** `thread not found: {id}` (app-server-protocol.md section 3). */
export const notFound = (id: string): ThreadStoreError =>
  new ThreadStoreError({ reason: "notFound", message: `thread not found: ${id}` })

/** `thread {id} was modified concurrently` (app-server-protocol.md section 3, thread/resume). */
export const conflict = (id: string): ThreadStoreError =>
  new ThreadStoreError({ reason: "conflict", message: `thread ${id} was modified concurrently` })

/** A second `create` with an id the store already holds. */
export const alreadyExists = (id: string): ThreadStoreError =>
  new ThreadStoreError({ reason: "conflict", message: `thread already exists: ${id}` })

/** A storage failure with its context prepended. */
export const storage = (context: string, detail: string): ThreadStoreError =>
  new ThreadStoreError({ reason: "storage", message: `${context}: ${redact(detail)}` })

/** Removes credentials from any URL in a message (`scheme://user:secret@host` becomes `scheme://***@host`). */
export const redact = (text: string): string => text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/gi, "$1***@")

/**
 * The message chain of an unknown failure (an `Error`'s message and its causes). An error's `code`
 * (an OS error such as `ENOSPC`, a driver's such as `SQLITE_FULL`) leads its message when the message
 * does not name it already: `ENOSPC: no space left on device`.
 */
export const describe = (cause: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error || (typeof current === "object" && "message" in current)) {
      const text = String((current as { message: unknown }).message)
      const code = (current as { code?: unknown }).code
      const message =
        typeof code === "string" && code !== "" && !text.includes(code)
          ? text === ""
            ? code
            : `${code}: ${text}`
          : text
      if (message !== "" && parts.at(-1) !== message) parts.push(message)
      current = (current as { cause?: unknown }).cause
    } else {
      parts.push(String(current))
      break
    }
  }
  return parts.length === 0 ? "unknown error" : parts.join(": ")
}

/** Why a body-store operation failed: the storage itself, or bounds that are not whole numbers of bytes. */
export const BodyStoreErrorReason = Schema.Literal("storage", "invalid")

/** A failed body-store operation; `message` is the whole message chain (never a connection string). */
export class BodyStoreError extends Schema.TaggedError<BodyStoreError>()("BodyStoreError", {
  reason: BodyStoreErrorReason,
  message: Schema.String
}) {}

/** A body-store storage failure with its context prepended. */
export const bodyStorage = (context: string, detail: string): BodyStoreError =>
  new BodyStoreError({ reason: "storage", message: `${context}: ${redact(detail)}` })

/** A thread-store failure met while opening the body store (driver, connection, migration): the same message. */
export const asBodyError = (error: ThreadStoreError): BodyStoreError =>
  new BodyStoreError({ reason: "storage", message: error.message })

/**
 * A failed token-vault operation (`TokenVault.ts`): the message names the table or the key's variable,
 * never a token, the key or a connection string.
 */
export class TokenVaultError extends Schema.TaggedError<TokenVaultError>()("TokenVaultError", {
  message: Schema.String
}) {}

/** A token-vault failure with its context prepended. */
export const vaultFailure = (context: string, detail: string): TokenVaultError =>
  new TokenVaultError({ message: `${context}: ${redact(detail)}` })
