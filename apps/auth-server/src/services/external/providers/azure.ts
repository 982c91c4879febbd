// Microsoft Entra ID (azure): OpenID Connect on the multi-tenant endpoint. An address counts as verified only
// when the tenant owns its domain (the xms_edov claim): any tenant can put any address on an account.
import type { ProviderDefinition } from '../provider-types';
import { oidcProfile } from './oidc-profile';

export const azure: ProviderDefinition = {
  name: 'azure',
  defaultUrl: 'https://login.microsoftonline.com/common/v2.0',
  oidc: true,
  scopes: ['openid', 'email', 'profile'],
  profile: (ctx, tokens) =>
    oidcProfile(ctx, tokens, 'azure', (claims) => claims.xms_edov === true || claims.xms_edov === '1' || claims.email_verified === true),
};
