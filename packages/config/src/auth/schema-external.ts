// External sign-in methods: email, phone, anonymous, and the 18 OAuth providers (EXTERNAL_<X>_*).
import { PROVIDER_NAMES } from './schema';
import type { ExternalConfig, ProviderConfig, ProviderName } from './schema';
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

export function readExternal(r: EnvReader): ExternalConfig {
  const providers = {} as Record<ProviderName, ProviderConfig>;
  for (const name of PROVIDER_NAMES) providers[name] = readProvider(r, name);
  return {
    email: { enabled: r.bool('EXTERNAL_EMAIL_ENABLED') ?? true },
    phone: { enabled: r.bool('EXTERNAL_PHONE_ENABLED') ?? false },
    anonymousUsers: { enabled: r.bool('EXTERNAL_ANONYMOUS_USERS_ENABLED') ?? false },
    providers,
    allowedIdTokenIssuers: r.list('ALLOWED_ID_TOKEN_ISSUERS') ?? [],
  };
}
