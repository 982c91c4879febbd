// WorkOS SSO: the token answer carries the profile; the identity provider behind the connection has
// verified the address.
import { obj, requireId, str, type ProviderDefinition } from '../provider-types';

export const workos: ProviderDefinition = {
  name: 'workos',
  defaultUrl: 'https://api.workos.com',
  endpoints: (base) => ({ authorize: `${base}/sso/authorize`, token: `${base}/sso/token` }),
  scopes: [],
  async profile(_ctx, tokens) {
    const profile = obj(tokens.raw.profile);
    const email = str(profile.email);
    const name = [str(profile.first_name), str(profile.last_name)].filter(Boolean).join(' ');
    return { providerId: requireId(profile.id, 'workos'), email, emailVerified: email !== undefined, name: name || undefined };
  },
};
