// POST /resend (reference §1.4.6): signup and email_change by email, sms and phone_change by SMS.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { resendEmail } from '../services/email/flows';
import { resendPhoneCode } from '../services/phone/flows';
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
      if (!body.phone) throw new ApiError(400, ErrorCode.validation_failed, 'Type provided requires a phone number');
      const messageId = await resendPhoneCode(deps, { type, phone: body.phone, client: clientInfo(deps, req).limitKey });
      // Nothing pending for that number is the same answer as a send without an id (no enumeration).
      res.json(messageId ? { message_id: messageId } : {});
      return;
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
