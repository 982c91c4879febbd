// Notion: the token exchange takes Basic authentication and JSON; the bot's owner is the user.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

export const notion: ProviderDefinition = {
  name: 'notion',
  defaultUrl: 'https://api.notion.com',
  endpoints: (base) => ({ authorize: `${base}/v1/oauth/authorize`, token: `${base}/v1/oauth/token` }),
  scopes: [],
  authorizeParams: { owner: 'user' },
  tokenAuth: 'basic-json',
  async profile(ctx) {
    const me = obj(await ctx.getJson(`${ctx.base}/v1/users/me`, { headers: { 'notion-version': '2022-06-28' } }));
    const user = obj(obj(obj(me.bot).owner).user);
    const email = str(obj(user.person).email);
    return { providerId: requireId(user.id, 'notion'), email, emailVerified: email !== undefined, name: str(user.name), avatarUrl: str(user.avatar_url) };
  },
};
