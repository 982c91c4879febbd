// Twitch: Helix /users needs the Client-Id header besides the token; only verified addresses are returned.
import { arr, obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://id.twitch.tv' ? 'https://api.twitch.tv' : base);

export const twitch: ProviderDefinition = {
  name: 'twitch',
  defaultUrl: 'https://id.twitch.tv',
  endpoints: (base) => ({ authorize: `${base}/oauth2/authorize`, token: `${base}/oauth2/token` }),
  scopes: ['user:read:email'],
  async profile(ctx) {
    const answer = obj(await ctx.getJson(`${api(ctx.base)}/helix/users`, { headers: { 'client-id': ctx.provider.clientId ?? '' } }));
    const user = obj(arr(answer.data)[0]);
    const email = str(user.email);
    return {
      providerId: requireId(user.id, 'twitch'),
      email,
      emailVerified: email !== undefined,
      name: str(user.display_name),
      avatarUrl: str(user.profile_image_url),
      userName: str(user.login),
    };
  },
};
