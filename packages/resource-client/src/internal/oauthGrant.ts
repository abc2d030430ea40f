/**
 * The non-interactive OAuth grants of an HTTP entry (`oauth_grant`): `client_credentials` with
 * `client_secret_basic` or `private_key_jwt`, and `enterprise` (cross-app access: the user's ID token
 * is exchanged at the enterprise IdP for an ID-JAG, RFC 8693, which the server's authorization server
 * takes as a JWT bearer grant, RFC 7523). The SDK's providers (`ClientCredentialsProvider`,
 * `PrivateKeyJwtProvider`, `CrossAppAccessProvider`, which signs assertions with `jose`) build each
 * token request; this module loads their credentials (variables, the key file) once per transport,
 * keeps them in memory only, and asks for tokens: a refresh token the authorization server issued is
 * used first (a rotated one is kept by the caller), and a refused one falls back to a new grant.
 * No error or log of this module quotes a secret, a key, an ID token or an assertion.
 */
import { type Config, Messages } from "@mcp-resources/protocol"
import type { FetchLike, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from "@modelcontextprotocol/client"
import { Config as EffectConfig, Effect, Option } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import { discover, issuerOf } from "./oauthDiscovery.js"
import type { Sdk } from "./sdk.js"

/** The client's name in the SDK providers' metadata. */
const clientName = "mcp-resources"

/** The credentials of a grant, read when the transport is made. */
export type GrantCredentials =
  | { readonly _tag: "client_secret_basic"; readonly clientId: string; readonly clientSecret: string }
  | {
      readonly _tag: "private_key_jwt"
      readonly clientId: string
      /** The private key as a JWK (whatever PEM form it was given in). */
      readonly privateKey: Record<string, unknown>
      readonly algorithm: string
    }
  | {
      readonly _tag: "enterprise"
      readonly clientId: string
      readonly clientSecret: string
      readonly idp: {
        readonly tokenEndpoint: string
        readonly clientId: string
        readonly clientSecret?: string
        readonly idToken: string
      }
    }

/** The `oauth_grant` name of credentials, as messages name the grant. */
export const grantName = (credentials: GrantCredentials): string =>
  credentials._tag === "enterprise" ? "enterprise" : "client_credentials"

/** A failure to load credentials: the message names the variable or file, never its content. */
export class CredentialsError extends Error {}

const variable = (name: string, what: string): Effect.Effect<string, CredentialsError> =>
  EffectConfig.option(EffectConfig.string(name)).pipe(
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.flatMap((value) =>
      Option.isSome(value) && value.value !== ""
        ? Effect.succeed(value.value)
        : Effect.fail(new CredentialsError(Messages.oauth.variableNotSet(name, what)))
    )
  )

/** The JWS algorithm of a key: RS256 (RSA), PS256 (RSA-PSS), ES256/384/512 (by curve), EdDSA. */
const algorithmOf = (key: NodeCrypto.KeyObject): string | undefined => {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return "RS256"
    case "rsa-pss":
      return "PS256"
    case "ed25519":
      return "EdDSA"
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve
      return curve === "prime256v1"
        ? "ES256"
        : curve === "secp384r1"
          ? "ES384"
          : curve === "secp521r1"
            ? "ES512"
            : undefined
    }
    default:
      return undefined
  }
}

/** A PEM private key (PKCS#8, PKCS#1 or SEC1) as a JWK with its algorithm; the reason never quotes the key. */
export const parsePrivateKey = (
  pem: string,
  source: string
): { readonly privateKey: Record<string, unknown>; readonly algorithm: string } => {
  let key: NodeCrypto.KeyObject
  try {
    key = NodeCrypto.createPrivateKey({ key: pem, format: "pem" })
  } catch {
    throw new CredentialsError(
      Messages.oauth.privateKeyUnusable(source, "not a PEM private key (PKCS#8, PKCS#1 or SEC1)")
    )
  }
  const algorithm = algorithmOf(key)
  if (algorithm === undefined) {
    const type = `${key.asymmetricKeyType ?? "unknown"}${key.asymmetricKeyDetails?.namedCurve ? ` ${key.asymmetricKeyDetails.namedCurve}` : ""}`
    throw new CredentialsError(
      Messages.oauth.privateKeyUnusable(
        source,
        `a ${type} key; RSA, RSA-PSS, EC P-256/P-384/P-521 or Ed25519 keys sign assertions`
      )
    )
  }
  return { privateKey: key.export({ format: "jwk" }) as Record<string, unknown>, algorithm }
}

const readKeyFile = (path: string): Effect.Effect<string, CredentialsError> =>
  Effect.try({
    try: () => NodeFs.readFileSync(path, "utf8"),
    catch: (error) => {
      const code = (error as { readonly code?: unknown }).code
      return new CredentialsError(
        Messages.oauth.privateKeyUnusable(
          `the file ${path}`,
          typeof code === "string" ? `cannot read it (${code})` : "cannot read it"
        )
      )
    }
  })

/** Reads the credentials of an entry's grant (its variables and key file); undefined for `authorization_code`. */
export const loadCredentials = (
  transport: Config.HttpTransport
): Effect.Effect<GrantCredentials | undefined, CredentialsError> =>
  Effect.gen(function* () {
    const grant = transport.oauthGrant
    const clientId = transport.oauthClientId
    if (grant === undefined || clientId === undefined) return undefined
    const secretVariable = transport.oauthClientSecretEnvVar
    if (grant._tag === "enterprise") {
      const idp = grant.idp
      return {
        _tag: "enterprise",
        clientId,
        clientSecret: secretVariable === undefined ? "" : yield* variable(secretVariable, "the OAuth client secret"),
        idp: {
          tokenEndpoint: idp.tokenEndpoint,
          clientId: idp.clientId,
          ...(idp.clientSecretEnvVar !== undefined
            ? { clientSecret: yield* variable(idp.clientSecretEnvVar, "the IdP client secret") }
            : {}),
          idToken: yield* variable(idp.idTokenEnvVar, "the ID token of the enterprise IdP")
        }
      }
    }
    const auth = grant.clientAuth
    if (auth._tag === "client_secret_basic") {
      if (secretVariable === undefined) return undefined
      return {
        _tag: "client_secret_basic",
        clientId,
        clientSecret: yield* variable(secretVariable, "the OAuth client secret")
      }
    }
    const source = auth.privateKey
    const pem =
      source._tag === "file" ? yield* readKeyFile(source.path) : yield* variable(source.name, "the OAuth private key")
    const key = yield* Effect.try({
      try: () => parsePrivateKey(pem, source._tag === "file" ? `the file ${source.path}` : `variable ${source.name}`),
      catch: (error) => (error instanceof CredentialsError ? error : new CredentialsError(String(error)))
    })
    return { _tag: "private_key_jwt", clientId, ...key }
  })

/** The SDK provider that builds the token request of `credentials`, bound to the discovered issuer. */
const providerFor = (
  sdk: Sdk["client"],
  credentials: GrantCredentials,
  state: OAuthDiscoveryState,
  fetchFn: FetchLike
): OAuthClientProvider => {
  const expectedIssuer = issuerOf(state)
  switch (credentials._tag) {
    case "client_secret_basic":
      return new sdk.ClientCredentialsProvider({
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        clientName,
        expectedIssuer
      })
    case "private_key_jwt":
      return new sdk.PrivateKeyJwtProvider({
        clientId: credentials.clientId,
        privateKey: credentials.privateKey,
        algorithm: credentials.algorithm,
        clientName,
        expectedIssuer
      })
    case "enterprise": {
      const idp = credentials.idp
      return new sdk.CrossAppAccessProvider({
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        clientName,
        expectedIssuer,
        fetchFn,
        // the ID token is exchanged at the IdP for an ID-JAG naming this authorization server and resource
        assertion: async (context) =>
          (
            await sdk.requestJwtAuthorizationGrant({
              tokenEndpoint: idp.tokenEndpoint,
              audience: context.authorizationServerUrl,
              resource: context.resourceUrl,
              idToken: idp.idToken,
              clientId: idp.clientId,
              ...(idp.clientSecret !== undefined ? { clientSecret: idp.clientSecret } : {}),
              ...(context.scope !== undefined ? { scope: context.scope } : {}),
              fetchFn: context.fetchFn
            })
          ).jwtAuthGrant
      })
    }
  }
}

/** What a grant request answers: the tokens, the discovery it used, and why a refresh token was not used. */
export interface Granted {
  readonly tokens: OAuthTokens
  readonly discovery: OAuthDiscoveryState
  /** Set when a stored refresh token was refused and a new grant was made instead (for the log). */
  readonly refreshRefused?: string
}

/** The text of an OAuth error of the token endpoint: `error (description)`. */
export const oauthErrorText = (sdk: Sdk["client"], error: unknown): string =>
  error instanceof sdk.OAuthError
    ? Messages.startup.oauth(error.code, error.message === error.code ? undefined : error.message)
    : error instanceof Error
      ? error.message
      : String(error)

/**
 * Asks the authorization server for tokens with `credentials`: discovery first (or the stored one),
 * then the stored refresh token if there is one and the scope does not widen, else a new grant.
 * Rejects with an error whose message names the grant, the server and the authorization server's reason.
 */
export const requestTokens = async (
  sdk: Sdk["client"],
  credentials: GrantCredentials,
  options: {
    readonly server: string
    readonly serverUrl: URL
    readonly fetchFn: FetchLike
    readonly scope?: string | undefined
    readonly resourceMetadataUrl?: URL | undefined
    readonly discovery?: OAuthDiscoveryState | undefined
    readonly previous?: { readonly refresh_token?: string | undefined; readonly scope?: string | undefined } | undefined
  }
): Promise<Granted> => {
  const fail = (error: unknown) =>
    new Error(Messages.oauth.grantFailed(options.server, grantName(credentials), oauthErrorText(sdk, error)))
  const { serverUrl, fetchFn } = options
  let state: OAuthDiscoveryState
  try {
    state = options.discovery ?? (await discover(sdk, serverUrl, fetchFn, options.resourceMetadataUrl))
  } catch (error) {
    throw fail(error)
  }
  const provider = providerFor(sdk, credentials, state, fetchFn)
  const authorizationServerUrl = state.authorizationServerUrl
  const metadata = state.authorizationServerMetadata
  let resource: URL | undefined
  try {
    // the resource indicator: the protected resource metadata's, checked against the server's URL
    resource = await sdk.selectResourceURL(serverUrl, provider, state.resourceMetadata)
  } catch (error) {
    throw fail(error)
  }
  const resourceText =
    resource !== undefined && state.resourceMetadata !== undefined ? state.resourceMetadata.resource : resource?.href
  const scope = options.scope ?? state.resourceMetadata?.scopes_supported?.join(" ")
  const previous = options.previous
  let refreshRefused: string | undefined
  if (previous?.refresh_token !== undefined && !sdk.isStrictScopeSuperset(scope, previous.scope)) {
    try {
      const tokens = await sdk.refreshAuthorization(authorizationServerUrl, {
        ...(metadata !== undefined ? { metadata } : {}),
        clientInformation: (await provider.clientInformation())!,
        refreshToken: previous.refresh_token,
        ...(resourceText !== undefined ? { resource: resourceText } : {}),
        ...(provider.addClientAuthentication !== undefined
          ? { addClientAuthentication: provider.addClientAuthentication }
          : {}),
        fetchFn
      })
      return { tokens, discovery: state }
    } catch (error) {
      if (!(error instanceof sdk.OAuthError)) throw fail(error)
      refreshRefused = oauthErrorText(sdk, error)
    }
  }
  try {
    // what `auth()` tells a provider before its token request (the cross-app access provider needs both)
    const withUrls = provider as OAuthClientProvider & {
      saveAuthorizationServerUrl?: (url: string) => void
      saveResourceUrl?: (url: string) => void
    }
    withUrls.saveAuthorizationServerUrl?.(issuerOf(state))
    if (resourceText !== undefined) withUrls.saveResourceUrl?.(resourceText)
    const tokens = await sdk.fetchToken(provider, authorizationServerUrl, {
      ...(metadata !== undefined ? { metadata } : {}),
      ...(resourceText !== undefined ? { resource: resourceText } : {}),
      ...(scope !== undefined ? { scope } : {}),
      fetchFn
    })
    return { tokens, discovery: state, ...(refreshRefused !== undefined ? { refreshRefused } : {}) }
  } catch (error) {
    throw fail(error)
  }
}
