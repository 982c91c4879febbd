// GitLab (gitlab.com or a self-managed instance at EXTERNAL_GITLAB_URL): the user, whose primary address is
// verified once confirmed_at is set, else a confirmed one from the address list.
import { arr, obj, requireId, str, type ProviderDefinition } from '../provider-types';

export const gitlab: ProviderDefinition = {
  name: 'gitlab',
  defaultUrl: 'https://gitlab.com',
  endpoints: (base) => ({ authorize: `${base}/oauth/authorize`, token: `${base}/oauth/token` }),
  scopes: ['read_user'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${ctx.base}/api/v4/user`));
    let email = str(user.email);
    let verified = email !== undefined && str(user.confirmed_at) !== undefined;
    if (!verified) {
      const confirmed = arr(await ctx.getJson(`${ctx.base}/api/v4/user/emails`)).map(obj).find((e) => str(e.confirmed_at));
      if (confirmed) {
        email = str(confirmed.email);
        verified = true;
      }
    }
    return { providerId: requireId(user.id, 'gitlab'), email, emailVerified: verified, name: str(user.name), avatarUrl: str(user.avatar_url), userName: str(user.username) };
  },
};
