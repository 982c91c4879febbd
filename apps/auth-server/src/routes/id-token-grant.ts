// POST /token?grant_type=id_token {id_token, provider | client_id + issuer, access_token?, nonce?,
// link_identity?} (reference §1.4.2), registered in the per-app grant table.
import { z } from 'zod';
import { authenticateUser, userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import type { ProviderClient } from '../services/external/provider-client';
import { signInWithIdToken } from '../services/external/id-token-sign-in';
import { optionalString } from './schemas';
import type { GrantHandler } from './token';

const IdTokenBody = z.object({
  id_token: optionalString,
  provider: optionalString,
  client_id: optionalString,
  issuer: optionalString,
  access_token: optionalString,
  nonce: optionalString,
  link_identity: z.boolean().nullish(),
});

export function idTokenGrant(providers: ProviderClient): GrantHandler {
  return async (deps, body, req) => {
    const input = validate(IdTokenBody, body);
    let linkingUser;
    if (input.link_identity) {
      await authenticateUser(deps, req);
      linkingUser = userOf(req).user;
    }
    return signInWithIdToken(deps, providers, {
      idToken: input.id_token ?? '',
      provider: input.provider ?? undefined,
      clientId: input.client_id ?? undefined,
      issuer: input.issuer ?? undefined,
      accessToken: input.access_token ?? undefined,
      nonce: input.nonce ?? undefined,
      linkingUser,
      client: clientInfo(deps, req),
    });
  };
}
