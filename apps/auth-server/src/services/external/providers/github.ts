// GitHub (and GitHub Enterprise Server, whose API is <base>/api/v3): the profile, then the addresses with their
// verified flags.
import { arr, obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://github.com' ? 'https://api.github.com' : `${base}/api/v3`);

export const github: ProviderDefinition = {
  name: 'github',
  defaultUrl: 'https://github.com',
  endpoints: (base) => ({ authorize: `${base}/login/oauth/authorize`, token: `${base}/login/oauth/access_token` }),
  scopes: ['user:email'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${api(ctx.base)}/user`));
    const emails = arr(await ctx.getJson(`${api(ctx.base)}/user/emails`)).map(obj);
    // The primary address, verified or not (an unverified one never links and must be confirmed by mail),
    // else the first verified one.
    const primary = emails.find((e) => e.primary === true) ?? emails.find((e) => e.verified === true);
    return {
      providerId: requireId(user.id, 'github'),
      email: str(primary?.email) ?? str(user.email),
      emailVerified: primary?.verified === true,
      name: str(user.name),
      avatarUrl: str(user.avatar_url),
      userName: str(user.login),
    };
  },
};
