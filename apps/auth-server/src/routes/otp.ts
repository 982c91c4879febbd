// POST /otp (an email or a phone number) and POST /magiclink (reference §1.4.4).
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { sendPasswordlessEmail } from '../services/email/flows';
import { sendPhoneOtp } from '../services/phone/flows';
import { pkceOf, requestRedirect } from './email-common';
import { metadataObject, optionalString, pkceFields } from './schemas';

const OtpBody = z.object({
  email: optionalString,
  phone: optionalString,
  create_user: z.boolean().nullish(),
  data: metadataObject,
  channel: optionalString,
  ...pkceFields,
});

export function otp(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(OtpBody, req.body);
    if (body.email && body.phone) {
      throw new ApiError(400, ErrorCode.validation_failed, 'Only an email address or phone number should be provided');
    }
    if (body.phone) {
      const channel = body.channel ?? 'sms';
      if (channel !== 'sms' && channel !== 'whatsapp') throw new ApiError(400, ErrorCode.validation_failed, 'channel must be sms or whatsapp');
      const messageId = await sendPhoneOtp(deps, { phone: body.phone, createUser: body.create_user ?? true, data: body.data ?? {}, channel, client: clientInfo(deps, req) });
      res.json({ message_id: messageId });
      return;
    }
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'An email address or phone number is required');
    await sendPasswordlessEmail(deps, {
      email: body.email,
      createUser: body.create_user ?? true,
      data: body.data ?? {},
      redirectTo: requestRedirect(deps, req),
      pkce: pkceOf(body),
      client: clientInfo(deps, req),
    });
    res.json({});
  };
}

const MagicLinkBody = z.object({
  email: optionalString,
  data: metadataObject,
  ...pkceFields,
});

export function magiclink(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(MagicLinkBody, req.body);
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'Password recovery requires an email');
    await sendPasswordlessEmail(deps, {
      email: body.email,
      createUser: true,
      data: body.data ?? {},
      redirectTo: requestRedirect(deps, req),
      pkce: pkceOf(body),
      client: clientInfo(deps, req),
    });
    res.json({});
  };
}
