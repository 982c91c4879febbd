// Bitbucket Cloud: the account, then its confirmed primary address (the API lives on api.bitbucket.org).
import { arr, obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://bitbucket.org' ? 'https://api.bitbucket.org/2.0' : `${base}/2.0`);

export const bitbucket: ProviderDefinition = {
  name: 'bitbucket',
  defaultUrl: 'https://bitbucket.org',
  endpoints: (base) => ({ authorize: `${base}/site/oauth2/authorize`, token: `${base}/site/oauth2/access_token` }),
  scopes: ['account', 'email'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${api(ctx.base)}/user`));
    const emails = arr(obj(await ctx.getJson(`${api(ctx.base)}/user/emails`)).values).map(obj);
    const primary = emails.find((e) => e.is_primary === true && e.is_confirmed === true) ?? emails.find((e) => e.is_confirmed === true);
    return {
      providerId: requireId(user.uuid, 'bitbucket'),
      email: str(primary?.email),
      emailVerified: primary !== undefined,
      name: str(user.display_name),
      avatarUrl: str(obj(obj(user.links).avatar).href),
      userName: str(user.username),
    };
  },
};
