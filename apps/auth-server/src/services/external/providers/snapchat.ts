// Snapchat (Login Kit): an external id, display name and Bitmoji; Snapchat shares no email address.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://accounts.snapchat.com' ? 'https://kit.snapchat.com' : base);

export const snapchat: ProviderDefinition = {
  name: 'snapchat',
  defaultUrl: 'https://accounts.snapchat.com',
  endpoints: (base) => ({ authorize: `${base}/accounts/oauth2/auth`, token: `${base}/accounts/oauth2/token` }),
  scopes: [
    'https://auth.snapchat.com/oauth2/api/user.external_id',
    'https://auth.snapchat.com/oauth2/api/user.display_name',
    'https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar',
  ],
  emailOptional: true,
  async profile(ctx) {
    const query = encodeURIComponent('{me{externalId displayName bitmoji{avatar}}}');
    const me = obj(obj(obj(await ctx.getJson(`${api(ctx.base)}/v1/me?query=${query}`)).data).me);
    return { providerId: requireId(me.externalId, 'snapchat'), emailVerified: false, name: str(me.displayName), avatarUrl: str(obj(me.bitmoji).avatar) };
  },
};
