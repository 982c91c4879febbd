// Where the authorization server lives: its issuer, its endpoints (RFC 8414 / OpenID Connect Discovery) and the
// page a browser is sent to for sign-in and consent.
import type { AuthConfig } from '@keyzone/config';
import { OAUTH_SCOPES } from '@keyzone/config';

/**
 * The auth server's own sign-in and consent page, used when AUTH_OAUTH_SERVER_AUTHORIZATION_PATH is not set.
 * Relative to API_EXTERNAL_URL; the hosted pages serve it.
 */
export const HOSTED_CONSENT_PATH = '/oauth/consent';

/** JWT_ISSUER, else API_EXTERNAL_URL: the `iss` of ID tokens and the base of every endpoint. */
export function oauthIssuer(config: Pick<AuthConfig, 'jwt' | 'api'>): string {
  return config.jwt.issuer || config.api.externalUrl.replace(/\/+$/, '');
}

/** Where GET /oauth/authorize sends the browser with `authorization_id`. */
export function authorizationPageUrl(config: Pick<AuthConfig, 'oauthServer' | 'siteUrl' | 'api'>, authorizationId: string): string {
  const path = config.oauthServer.authorizationPath;
  const base = path ? config.siteUrl.replace(/\/+$/, '') + path : config.api.externalUrl.replace(/\/+$/, '') + HOSTED_CONSENT_PATH;
  const url = new URL(base);
  url.searchParams.set('authorization_id', authorizationId);
  return url.toString();
}

/** The discovery document, served at both well-known paths (GoTrue's fields, plus revocation and introspection). */
export function discoveryDocument(config: Pick<AuthConfig, 'jwt' | 'api' | 'oauthServer'>, signingAlgorithm: string): Record<string, unknown> {
  const issuer = oauthIssuer(config);
  const base = issuer.replace(/\/+$/, '');
  return {
    issuer,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    ...(config.oauthServer.allowDynamicRegistration ? { registration_endpoint: `${base}/oauth/clients/register` } : {}),
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [signingAlgorithm],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: false,
    claims_supported: [
      'sub', 'aud', 'iss', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'email', 'email_verified',
      'phone_number', 'phone_number_verified', 'name', 'picture', 'preferred_username', 'updated_at',
    ],
  };
}
