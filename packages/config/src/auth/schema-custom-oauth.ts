// Custom OAuth 2.0 / OpenID Connect providers kept in the database (GoTrue's CUSTOM_OAUTH_*), and the networks that
// URLs an admin types (their endpoints, SAML metadata_url) may reach. The providers' client secrets are sealed with a
// key derived from SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY (GoTrue's name), else from JWT_SECRET.
import type { EnvReader } from './env-reader';
import { Invalid } from './env-reader';
import { parseTrustedProxies } from '../client-address';
import { weakSecretReason } from '../secret-strength';
import type { CustomOAuthConfig, OutboundConfig } from './schema';

function parseNetworks(raw: string): string[] | Invalid | undefined {
  const entries = parseTrustedProxies(raw);
  if (!entries) return new Invalid('comma-separated CIDR blocks or addresses (e.g. 10.20.0.0/16,192.0.2.7/32)');
  return entries;
}

export function readOutbound(r: EnvReader): OutboundConfig {
  return {
    allowedNetworks: r.read('OUTBOUND_ALLOWED_NETWORKS', 'comma-separated CIDR blocks', parseNetworks) ?? [],
  };
}

export function readCustomOAuth(r: EnvReader, jwtSecret: string | undefined, production = false): CustomOAuthConfig {
  const explicit = r.bool('CUSTOM_OAUTH_ENABLED');
  const dedicated = r.string('SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY');
  if (dedicated !== undefined && dedicated.length < 32) {
    r.problem(`${r.display('SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY')}: expected at least 32 characters (e.g. \`openssl rand -base64 32\`)`);
  } else if (dedicated !== undefined && production) {
    // Like every production secret (issue 39): a patterned key is as good as none.
    const weak = weakSecretReason(dedicated);
    if (weak) r.problem(`${r.display('SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY')}: ${weak}`);
  }
  const secretKeyMaterial = dedicated ?? jwtSecret;
  // Without key material the client secrets could not be sealed: explicitly asked for, that stops the start;
  // merely defaulted on (GoTrue's default), the feature stays off.
  if (explicit === true && secretKeyMaterial === undefined) {
    r.problem(`${r.display('CUSTOM_OAUTH_ENABLED')}: needs ${r.display('SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY')} (or JWT_SECRET) to encrypt the providers' client secrets`);
  }
  return {
    enabled: (explicit ?? true) && secretKeyMaterial !== undefined,
    maxProviders: r.int('CUSTOM_OAUTH_MAX_PROVIDERS', { min: 0 }) ?? 0,
    discoveryRefreshSeconds: r.duration('CUSTOM_OAUTH_DISCOVERY_REFRESH_PERIOD') ?? 3600,
    secretKeyMaterial,
  };
}
