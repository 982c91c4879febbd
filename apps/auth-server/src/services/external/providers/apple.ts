// Sign in with Apple: the ID token is the profile (email_verified comes as "true"); the name is posted to
// /callback once, at the first sign-in, as the JSON form field `user`. With the name and email scopes Apple
// answers by form_post.
import { obj, str, type ProviderDefinition } from '../provider-types';
import { oidcProfile } from './oidc-profile';

export const apple: ProviderDefinition = {
  name: 'apple',
  defaultUrl: 'https://appleid.apple.com',
  oidc: true,
  scopes: ['name', 'email'],
  authorizeParams: { response_mode: 'form_post' },
  async profile(ctx, tokens) {
    const profile = await oidcProfile(ctx, tokens, 'apple');
    if (!profile.name && ctx.callbackFields.user) {
      try {
        const name = obj(obj(JSON.parse(ctx.callbackFields.user)).name);
        profile.name = [str(name.firstName), str(name.lastName)].filter(Boolean).join(' ') || undefined;
      } catch {
        // A malformed name is not worth failing the sign-in for.
      }
    }
    return profile;
  },
};
