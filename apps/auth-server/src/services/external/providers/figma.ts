// Figma: /v1/me; Figma accounts sign in with a verified address.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

const api = (base: string): string => (base === 'https://www.figma.com' ? 'https://api.figma.com' : base);

export const figma: ProviderDefinition = {
  name: 'figma',
  defaultUrl: 'https://www.figma.com',
  endpoints: (base) => ({ authorize: `${base}/oauth`, token: `${api(base)}/v1/oauth/token` }),
  scopes: ['current_user:read'],
  async profile(ctx) {
    const user = obj(await ctx.getJson(`${api(ctx.base)}/v1/me`));
    const email = str(user.email);
    return { providerId: requireId(user.id, 'figma'), email, emailVerified: email !== undefined, name: str(user.handle), avatarUrl: str(user.img_url), userName: str(user.handle) };
  },
};
