// X / Twitter through OAuth 2.0: PKCE is required of the client and the token request is authenticated with
// Basic; confirmed_email needs the users.email scope.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://twitter.com' ? 'https://api.twitter.com' : base);

export const twitter: ProviderDefinition = {
  name: 'twitter',
  defaultUrl: 'https://twitter.com',
  endpoints: (base) => ({ authorize: `${base}/i/oauth2/authorize`, token: `${api(base)}/2/oauth2/token` }),
  scopes: ['users.read', 'tweet.read', 'users.email'],
  requiresPkce: true,
  tokenAuth: 'basic',
  emailOptional: true,
  async profile(ctx) {
    const user = obj(obj(await ctx.getJson(`${api(ctx.base)}/2/users/me?user.fields=profile_image_url,confirmed_email`)).data);
    const email = str(user.confirmed_email);
    return {
      providerId: requireId(user.id, 'twitter'),
      email,
      emailVerified: email !== undefined,
      name: str(user.name),
      avatarUrl: str(user.profile_image_url),
      userName: str(user.username),
    };
  },
};
