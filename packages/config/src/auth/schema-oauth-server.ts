// Keyzone as an OAuth 2.1 / OpenID Connect authorization server (GoTrue's OAUTH_SERVER_* settings). Off by default.
// ID tokens must be verifiable by relying parties from the JWKS, so the server refuses to start with the OAuth
// server on and only an HS256 signing key: a shared secret cannot be published.
import type { EnvReader } from './env-reader';
import type { AuthConfig, OAuthServerConfig } from './schema';

/** The scopes the server understands (GoTrue's list); DEFAULT_SCOPE may only name these. */
export const OAUTH_SCOPES = ['openid', 'profile', 'email', 'phone', 'offline_access'] as const;

export function readOAuthServer(r: EnvReader): OAuthServerConfig {
  const enabled = r.bool('OAUTH_SERVER_ENABLED') ?? false;
  const path = r.read('OAUTH_SERVER_AUTHORIZATION_PATH', 'a path starting with / (e.g. /oauth/consent)', (raw) => {
    const value = raw.trim();
    return /^\/(?!\/)[^\s?#\\]*$/.test(value) ? value : undefined;
  });
  const defaultScope = r.read('OAUTH_SERVER_DEFAULT_SCOPE', `space-separated scopes from: ${OAUTH_SCOPES.join(' ')}`, (raw) => {
    const scopes = raw.trim().split(/\s+/).filter(Boolean);
    return scopes.length > 0 && scopes.every((s) => (OAUTH_SCOPES as readonly string[]).includes(s)) ? scopes.join(' ') : undefined;
  });
  return {
    enabled,
    allowDynamicRegistration: r.bool('OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION') ?? false,
    authorizationPath: path,
    authorizationTtl: r.duration('OAUTH_SERVER_AUTHORIZATION_TTL') ?? 600,
    defaultScope: defaultScope ?? 'email',
    rateLimitDynamicRegister: r.int('RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER', { min: 0 }) ?? 10,
  };
}

/** OAUTH_SERVER_ENABLED with only an HS256 key (JWT_SECRET, or an "oct" key signing in JWT_KEYS) is refused. */
export function checkOAuthServerSigningKey(r: EnvReader, config: Pick<AuthConfig, 'oauthServer' | 'jwt'>): void {
  if (!config.oauthServer.enabled) return;
  const signer = config.jwt.keys?.find((key) => key.key_ops?.includes('sign'));
  if (signer && signer.kty !== 'oct') return;
  r.problem(
    `${r.display('OAUTH_SERVER_ENABLED')}: needs an asymmetric signing key (RS256, ES256 or EdDSA) in ${r.display('JWT_KEYS')}: ` +
      `relying parties check ID tokens against the published JWKS, and ${signer ? 'an HS256 key' : r.display('JWT_SECRET')} cannot be published ` +
      '(make one with `keyzone-auth-server keys generate`)',
  );
}
