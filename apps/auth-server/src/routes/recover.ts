// POST /recover (reference §1.4.5): the same 200 {} whether or not the address is known.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { sendRecoveryEmail } from '../services/email/flows';
import { pkceOf, requestRedirect } from './email-common';
import { optionalString, pkceFields } from './schemas';

const RecoverBody = z.object({ email: optionalString, ...pkceFields });

export function recover(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(RecoverBody, req.body);
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'Password recovery requires an email');
    await sendRecoveryEmail(deps, {
      email: body.email,
      redirectTo: requestRedirect(deps, req),
      pkce: pkceOf(body),
      client: clientInfo(deps, req),
    });
    res.json({});
  };
}
