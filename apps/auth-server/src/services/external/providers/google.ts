// Google: OpenID Connect; the ID token carries sub, email, email_verified, name and picture.
import type { ProviderDefinition } from '../provider-types';
import { oidcProfile } from './oidc-profile';

export const google: ProviderDefinition = {
  name: 'google',
  defaultUrl: 'https://accounts.google.com',
  oidc: true,
  scopes: ['openid', 'email', 'profile'],
  profile: (ctx, tokens) => oidcProfile(ctx, tokens, 'google'),
};
