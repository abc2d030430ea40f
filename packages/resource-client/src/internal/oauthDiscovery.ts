/**
 * Where a server's authorization server is and what it offers, as the SDK discovers it (protected
 * resource metadata, RFC 9728, then the authorization server's metadata, RFC 8414 / OpenID Connect),
 * with the 2025-03-26 back-compat the SDK refuses: a server without protected resource metadata is its
 * own authorization server at its origin, and its metadata there may name an issuer with a path on
 * that origin (`https://mcp.example/oauth`). RFC 8414's issuer check expects the metadata URL's own
 * issuer; for that one shape (no resource metadata, same origin) the issuer is taken as the metadata
 * says, since the metadata came from the server's own origin. Any other mismatch still fails.
 */
import type { FetchLike, OAuthDiscoveryState } from "@modelcontextprotocol/client"
import type { Sdk } from "./sdk.js"

/** Discovers the authorization server of `serverUrl` (see the module comment for the back-compat). */
export const discover = async (
  sdk: Sdk["client"],
  serverUrl: URL,
  fetchFn: FetchLike,
  resourceMetadataUrl?: URL
): Promise<OAuthDiscoveryState> => {
  const options = { fetchFn, ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}) }
  let info: Awaited<ReturnType<Sdk["client"]["discoverOAuthServerInfo"]>>
  try {
    info = await sdk.discoverOAuthServerInfo(serverUrl, options)
  } catch (error) {
    if (!(error instanceof sdk.IssuerMismatchError)) throw error
    info = await sdk.discoverOAuthServerInfo(serverUrl, { ...options, skipIssuerMetadataValidation: true })
    const issuer = info.authorizationServerMetadata?.issuer
    if (
      info.resourceMetadata !== undefined ||
      issuer === undefined ||
      !sameOrigin(issuer, info.authorizationServerUrl)
    ) {
      throw error
    }
  }
  return {
    authorizationServerUrl: String(info.authorizationServerUrl),
    ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
    ...(info.resourceMetadata !== undefined ? { resourceMetadata: info.resourceMetadata } : {}),
    ...(info.authorizationServerMetadata !== undefined
      ? { authorizationServerMetadata: info.authorizationServerMetadata }
      : {})
  }
}

const sameOrigin = (a: string, b: string): boolean => {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/** The issuer a discovery names: the metadata's, else the authorization server's URL (no metadata). */
export const issuerOf = (state: OAuthDiscoveryState): string =>
  state.authorizationServerMetadata?.issuer ?? String(state.authorizationServerUrl)
