// GET /verify (the link in emails: always a 303) and POST /verify (a typed code or token hash:
// a token response). Reference §1.4.3.
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { refuseUnstorable } from '../http/body';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { normalizeEmail } from '../services/sessions/accounts';
import { PKCE_PREFIX, type TokenProof } from '../services/email/one-time-tokens';
import { errorLocation, errorParams, sessionParams, withFragment, withQuery } from '../services/platform/redirect-urls';
import { verifyPhoneCode } from '../services/phone/flows';
import { EMAIL_VERIFY_TYPES, verifyEmailToken, type EmailVerifyType } from '../services/email/verification';
import { requestRedirect } from './email-common';
import { optionalString } from './schemas';

const LINK_TYPES: readonly string[] = ['signup', 'recovery', 'magiclink', 'invite', 'email_change'];

function errorRedirect(deps: Deps, req: Request, target: string, err: unknown, pkce: boolean): string {
  const { params, unexpected } = errorParams(err);
  if (unexpected) (req.log ?? deps.log).error({ err }, 'GET /verify failed');
  return errorLocation(target, params, pkce);
}

export function verifyGet(deps: Deps): RequestHandler {
  return async (req, res) => {
    // Express answers HEAD with the GET handler; a link scanner's HEAD must not use the token up.
    if (req.method === 'HEAD') {
      res.status(405).set('Allow', 'GET, POST').end();
      return;
    }
    const target = requestRedirect(deps, req);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const type = typeof req.query.type === 'string' ? req.query.type : '';
    const pkce = token.startsWith(PKCE_PREFIX);
    let location: string;
    try {
      if (!LINK_TYPES.includes(type)) throw new ApiError(400, ErrorCode.validation_failed, 'Verify requires a verification type');
      if (token === '') throw new ApiError(400, ErrorCode.validation_failed, 'Verify requires a token or a token hash');
      refuseUnstorable(token, 'token');
      const outcome = await verifyEmailToken(deps, {
        type: type as EmailVerifyType,
        proof: { tokenHash: token },
        client: clientInfo(deps, req),
        viaLink: true,
        invalidMessage: 'Email link is invalid or has expired',
      });
      if (outcome.kind === 'code') {
        location = withQuery(target, { code: outcome.authCode });
      } else if (outcome.kind === 'message') {
        const params = { message: outcome.message, sb: '' };
        location = withFragment(pkce ? withQuery(target, params) : target, params);
      } else {
        location = withFragment(target, { ...sessionParams(outcome.body), type: outcome.body.type });
      }
    } catch (err) {
      location = errorRedirect(deps, req, target, err, pkce);
    }
    res.redirect(303, location);
  };
}

const VerifyBody = z.object({
  type: optionalString,
  token: optionalString,
  token_hash: optionalString,
  email: optionalString,
  phone: optionalString,
  password: optionalString,
  redirect_to: optionalString,
});

export function verifyPost(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(VerifyBody, req.body);
    const type = body.type ?? '';
    if (type === 'sms' || type === 'phone_change') {
      if (!body.phone || !body.token) throw new ApiError(400, ErrorCode.validation_failed, 'Verify requires a phone number and a token');
      res.json(await verifyPhoneCode(deps, { type, phone: body.phone, otp: body.token.trim(), client: clientInfo(deps, req) }));
      return;
    }
    if (!(EMAIL_VERIFY_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(400, ErrorCode.validation_failed, 'Verify requires a verification type');
    }
    let proof: TokenProof;
    if (body.token_hash) {
      if (body.email || body.phone || body.redirect_to) {
        throw new ApiError(400, ErrorCode.validation_failed, 'Only the token_hash and type should be provided');
      }
      proof = { tokenHash: body.token_hash };
    } else if (body.token) {
      if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'Only an email address or phone number should be provided on verify');
      proof = { email: normalizeEmail(body.email), otp: body.token.trim() };
    } else {
      throw new ApiError(400, ErrorCode.validation_failed, 'Verify requires either a token or a token hash');
    }
    const outcome = await verifyEmailToken(deps, {
      type: type as EmailVerifyType,
      proof,
      password: body.password,
      client: clientInfo(deps, req),
      viaLink: false,
    });
    if (outcome.kind === 'session') res.json(outcome.body);
    else if (outcome.kind === 'message') res.json({ msg: outcome.message, code: '200' });
    else throw new ApiError(500, ErrorCode.unexpected_failure, 'unexpected verification outcome');
  };
}
