// Slack ("Sign in with Slack", identity scopes): users.identity gives the user, the address and the avatar.
import { obj, requireId, str, ProviderError, type ProviderDefinition } from '../provider-types';

export const slack: ProviderDefinition = {
  name: 'slack',
  defaultUrl: 'https://slack.com',
  endpoints: (base) => ({ authorize: `${base}/oauth/authorize`, token: `${base}/api/oauth.access` }),
  scopes: ['identity.basic', 'identity.email', 'identity.avatar'],
  async profile(ctx) {
    const answer = obj(await ctx.getJson(`${ctx.base}/api/users.identity`));
    if (answer.ok !== true) throw new ProviderError(`slack: ${str(answer.error) ?? 'users.identity failed'}`);
    const user = obj(answer.user);
    const email = str(user.email);
    return { providerId: requireId(user.id, 'slack'), email, emailVerified: email !== undefined, name: str(user.name), avatarUrl: str(user.image_192) };
  },
};
