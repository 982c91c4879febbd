// GET /reauthenticate (reference §1.4.8): a nonce for PUT /user {password, nonce}.
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import { userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { sendReauthenticationNonce } from '../services/email/flows';

export function reauthenticate(deps: Deps): RequestHandler {
  return async (req, res) => {
    const { user } = userOf(req);
    await sendReauthenticationNonce(deps, { user, client: clientInfo(deps, req) });
    res.json({});
  };
}
