/** The token vault's constants, shared by `TokenVault.ts` and the driver module it loads on demand. */

/** The table of sealed logins. */
export const table = "oauth_tokens"

/** What the vault's errors name. */
export const location = `the token store (PostgreSQL table ${table})`

/** How long a refresh waits for another process's refresh lock on the same login. */
export const lockWaitSeconds = 15
