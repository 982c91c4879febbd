// Facebook: the Graph API's /me with the fields named, proven by appsecret_proof. Facebook returns only
// confirmed addresses.
import { createHmac } from 'node:crypto';
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

const graph = (base: string): string => (base === 'https://www.facebook.com' ? 'https://graph.facebook.com' : base);

export const facebook: ProviderDefinition = {
  name: 'facebook',
  defaultUrl: 'https://www.facebook.com',
  endpoints: (base) => ({ authorize: `${base}/dialog/oauth`, token: `${graph(base)}/oauth/access_token` }),
  scopes: ['email'],
  async profile(ctx, tokens) {
    const proof = createHmac('sha256', ctx.provider.secret ?? '').update(tokens.accessToken).digest('hex');
    const fields = 'id,name,first_name,last_name,email,picture.type(large)';
    const user = obj(await ctx.getJson(`${graph(ctx.base)}/me?fields=${encodeURIComponent(fields)}&appsecret_proof=${proof}`));
    const email = str(user.email);
    return {
      providerId: requireId(user.id, 'facebook'),
      email,
      emailVerified: email !== undefined,
      name: str(user.name),
      avatarUrl: str(obj(obj(user.picture).data).url),
    };
  },
};
