// External sign-in methods: email, phone, anonymous, and the 18 OAuth providers (EXTERNAL_<X>_*).
import { PROVIDER_NAMES } from './schema';
import type { ExternalConfig, ProviderConfig, ProviderName, Web3ChainConfig } from './schema';
import type { EnvReader } from './env-reader';

function readProvider(r: EnvReader, name: ProviderName): ProviderConfig {
  const key = `EXTERNAL_${name.toUpperCase()}`;
  const enabled = r.bool(`${key}_ENABLED`) ?? false;
  if (enabled) {
    r.requireWhen([`${key}_CLIENT_ID`, `${key}_SECRET`, `${key}_REDIRECT_URI`], `${r.display(`${key}_ENABLED`)} is true`);
    // Keycloak has no public host: its URL is the operator's realm (https://host/realms/<realm>).
    if (name === 'keycloak') r.requireWhen([`${key}_URL`], `${r.display(`${key}_ENABLED`)} is true`);
  }
  return {
    enabled,
    clientId: r.string(`${key}_CLIENT_ID`)?.trim(),
    secret: r.string(`${key}_SECRET`),
    redirectUri: r.url(`${key}_REDIRECT_URI`),
    url: r.url(`${key}_URL`),
  };
}

const trimIssuer = (issuer: string) => issuer.trim().replace(/\/+$/, '');

/** ID_TOKEN_ISSUER_CLIENT_IDS: `<issuer>=<client id>[ <client id>…]` entries separated by `;`. */
function parseIssuerClientIds(raw: string): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  for (const entry of raw.split(';').map((e) => e.trim()).filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    if (at <= 0) return undefined;
    const ids = entry.slice(at + 1).split(/[\s,]+/).filter(Boolean);
    if (ids.length === 0) return undefined;
    out[trimIssuer(entry.slice(0, at))] = ids;
  }
  return out;
}

/**
 * Issuers for grant_type=id_token with client_id + issuer, each with the client ids its tokens must be minted for:
 * without them the audience would be whatever client_id the request names, so a token a victim got for another
 * app would sign in here (issue 26).
 */
function readIdTokenIssuers(r: EnvReader): { allowedIdTokenIssuers: string[]; clientIds: Record<string, string[]> } {
  const allowedIdTokenIssuers = r.list('ALLOWED_ID_TOKEN_ISSUERS') ?? [];
  const clientIds = r.read('ID_TOKEN_ISSUER_CLIENT_IDS', '"<issuer>=<client id> [<client id>…]" entries separated by ";"', parseIssuerClientIds) ?? {};
  for (const issuer of allowedIdTokenIssuers) {
    if (!clientIds[trimIssuer(issuer)]) {
      r.problem(`${r.missingName('ID_TOKEN_ISSUER_CLIENT_IDS')}: required for ${issuer} of ${r.display('ALLOWED_ID_TOKEN_ISSUERS')} (the client ids its ID tokens are issued to)`);
    }
  }
  return { allowedIdTokenIssuers, clientIds };
}

/** Sign in with Ethereum / Solana (grant_type=web3), GoTrue's EXTERNAL_WEB3_<CHAIN>_* settings. */
function readWeb3Chain(r: EnvReader, chain: 'ETHEREUM' | 'SOLANA'): Web3ChainConfig {
  return {
    enabled: r.bool(`EXTERNAL_WEB3_${chain}_ENABLED`) ?? false,
    maximumValidityDuration: r.duration(`EXTERNAL_WEB3_${chain}_MAXIMUM_VALIDITY_DURATION`) ?? 600,
  };
}

export function readExternal(r: EnvReader): ExternalConfig {
  const providers = {} as Record<ProviderName, ProviderConfig>;
  for (const name of PROVIDER_NAMES) providers[name] = readProvider(r, name);
  const { allowedIdTokenIssuers, clientIds } = readIdTokenIssuers(r);
  return {
    email: { enabled: r.bool('EXTERNAL_EMAIL_ENABLED') ?? true },
    phone: { enabled: r.bool('EXTERNAL_PHONE_ENABLED') ?? false },
    anonymousUsers: { enabled: r.bool('EXTERNAL_ANONYMOUS_USERS_ENABLED') ?? false },
    providers,
    allowedIdTokenIssuers,
    idTokenIssuerClientIds: clientIds,
    web3: { ethereum: readWeb3Chain(r, 'ETHEREUM'), solana: readWeb3Chain(r, 'SOLANA') },
  };
}
