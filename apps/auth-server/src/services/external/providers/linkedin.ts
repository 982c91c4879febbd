// LinkedIn: "Sign In with LinkedIn using OpenID Connect" (the profile API of the old product is retired).
import type { ProviderDefinition } from '../provider-types';
import { oidcProfile } from './oidc-profile';

export const linkedin: ProviderDefinition = {
  name: 'linkedin',
  defaultUrl: 'https://www.linkedin.com/oauth',
  oidc: true,
  scopes: ['openid', 'profile', 'email'],
  profile: (ctx, tokens) => oidcProfile(ctx, tokens, 'linkedin'),
};
