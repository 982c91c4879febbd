// POST /resend (reference §1.4.6): email types here; sms / phone_change come with the SMS issue.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { resendEmail } from '../services/email-flows';
import { pkceOf, requestRedirect } from './email-common';
import { optionalString, pkceFields } from './schemas';

const ResendBody = z.object({
  type: optionalString,
  email: optionalString,
  phone: optionalString,
  ...pkceFields,
});

export function resend(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(ResendBody, req.body);
    const type = body.type ?? '';
    if (type === 'sms' || type === 'phone_change') {
      throw new ApiError(400, ErrorCode.phone_provider_disabled, Messages.phoneSignupsDisabled);
    }
    if (type !== 'signup' && type !== 'email_change') {
      throw new ApiError(400, ErrorCode.validation_failed, 'Missing one of these types: signup, email_change, sms, phone_change');
    }
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'Type provided requires an email address');
    await resendEmail(deps, {
      type,
      email: body.email,
      redirectTo: requestRedirect(deps, req),
      pkce: pkceOf(body),
      client: clientInfo(deps, req),
    });
    res.json({});
  };
}
