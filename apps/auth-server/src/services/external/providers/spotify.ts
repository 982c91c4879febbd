// Spotify: /v1/me; Spotify does not say whether the address is verified, so it is not taken as verified.
import { arr, obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://accounts.spotify.com' ? 'https://api.spotify.com' : base);

export const spotify: ProviderDefinition = {
  name: 'spotify',
  defaultUrl: 'https://accounts.spotify.com',
  endpoints: (base) => ({ authorize: `${base}/authorize`, token: `${base}/api/token` }),
  scopes: ['user-read-email'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${api(ctx.base)}/v1/me`));
    return {
      providerId: requireId(user.id, 'spotify'),
      email: str(user.email),
      emailVerified: false,
      name: str(user.display_name),
      avatarUrl: str(obj(arr(user.images)[0]).url),
    };
  },
};
