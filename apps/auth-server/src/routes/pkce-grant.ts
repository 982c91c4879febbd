// POST /token?grant_type=pkce {auth_code, code_verifier} (reference §1.4.2), registered in the
// per-app grant table that buildRouter hands to the token route.
import { z } from 'zod';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { exchangeAuthCode } from '../services/external/pkce';
import { optionalString } from './schemas';
import type { GrantHandler } from './token';

const PkceBody = z.object({ auth_code: optionalString, code_verifier: optionalString });

export const pkceGrant: GrantHandler = async (deps, body, req) => {
  const input = validate(PkceBody, body);
  return exchangeAuthCode(deps, { authCode: input.auth_code ?? '', codeVerifier: input.code_verifier ?? '', client: clientInfo(deps, req) });
};
