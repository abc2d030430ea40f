/**
 * Sealing of the token vault's records: AES-256-GCM (node:crypto) with a fresh 96-bit nonce for every
 * write, the record's server and URL as additional data (a sealed value moved to another row does not
 * open). The nonce comes from `crypto.randomBytes`, not Effect's `Random`: a nonce must be
 * unpredictable and never repeat, which a seeded generator does not promise.
 */
import * as NodeCrypto from "node:crypto"

/** The name of the environment variable holding the key. */
export const keyVariable = "MCP_RESOURCES_TOKEN_KEY"

/** Bytes of the key (AES-256). */
export const keyBytes = 32

const nonceBytes = 12
const tagBytes = 16

/** Standard base64 of exactly 32 bytes: 43 characters and one `=`. */
const base64Key = /^[A-Za-z0-9+/]{43}=$/

/**
 * The key of `text` (base64 of 32 bytes, surrounding whitespace ignored), or the reason it is refused.
 * The reason never quotes the value.
 */
export const parseKey = (text: string): { readonly key: Uint8Array } | { readonly refused: string } => {
  const trimmed = text.trim()
  if (trimmed === "") return { refused: `${keyVariable} is empty` }
  if (!base64Key.test(trimmed)) {
    return {
      refused: `${keyVariable} must be ${keyBytes} random bytes in base64 (44 characters, such as the output of \`openssl rand -base64 32\`); the value set is not`
    }
  }
  return { key: new Uint8Array(Buffer.from(trimmed, "base64")) }
}

/** The additional data binding a sealed value to its row. */
const associated = (server: string, url: string) => Buffer.from(`${server}\u0000${url}`, "utf8")

/** Seals `text` for the row of `server` and `url`: the nonce, and the ciphertext with its tag appended. */
export const seal = (
  key: Uint8Array,
  server: string,
  url: string,
  text: string
): { readonly nonce: Uint8Array; readonly sealed: Uint8Array } => {
  const nonce = NodeCrypto.randomBytes(nonceBytes)
  const cipher = NodeCrypto.createCipheriv("aes-256-gcm", key, nonce, { authTagLength: tagBytes })
  cipher.setAAD(associated(server, url))
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()])
  return { nonce: new Uint8Array(nonce), sealed: new Uint8Array(body) }
}

/** Opens a sealed value of the row of `server` and `url`; undefined when it does not open (altered, another key or row). */
export const open = (
  key: Uint8Array,
  server: string,
  url: string,
  nonce: Uint8Array,
  sealed: Uint8Array
): string | undefined => {
  if (nonce.length !== nonceBytes || sealed.length < tagBytes) return undefined
  try {
    const decipher = NodeCrypto.createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: tagBytes })
    decipher.setAAD(associated(server, url))
    decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes))
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - tagBytes)), decipher.final()]).toString(
      "utf8"
    )
  } catch {
    return undefined
  }
}
