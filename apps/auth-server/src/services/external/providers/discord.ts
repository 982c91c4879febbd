// Discord: /users/@me carries the address and whether it is verified.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

export const discord: ProviderDefinition = {
  name: 'discord',
  defaultUrl: 'https://discord.com',
  endpoints: (base) => ({ authorize: `${base}/api/oauth2/authorize`, token: `${base}/api/oauth2/token` }),
  scopes: ['email', 'identify'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${ctx.base}/api/users/@me`));
    const id = requireId(user.id, 'discord');
    const avatar = str(user.avatar);
    return {
      providerId: id,
      email: str(user.email),
      emailVerified: user.verified === true,
      name: str(user.global_name) ?? str(user.username),
      avatarUrl: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : undefined,
      userName: str(user.username),
    };
  },
};
