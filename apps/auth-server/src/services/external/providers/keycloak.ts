// Keycloak: OpenID Connect at the operator's realm, EXTERNAL_KEYCLOAK_URL = https://host/realms/<realm>.
import type { ProviderDefinition } from '../provider-types';
import { oidcProfile } from './oidc-profile';

export const keycloak: ProviderDefinition = {
  name: 'keycloak',
  defaultUrl: undefined,
  oidc: true,
  scopes: ['openid', 'profile', 'email'],
  profile: (ctx, tokens) => oidcProfile(ctx, tokens, 'keycloak'),
};
