// POST /signup (reference §1.4.1): email + password, phone + password, or anonymous when neither
// email nor phone is given.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { burstFor, sharedLimitClient } from '../http/rate-limit';
import { validate } from '../http/validate';
import { signInAnonymously } from '../services/sessions/accounts';
import { signUpWithEmail, signUpWithPhone } from '../services/sessions/password-signup';
import { LeaseBook, takeSharedLimit, type SharedLimit } from '../services/platform/shared-rate-limits';
import { metadataObject, optionalString, pkceFields } from './schemas';

const SignupBody = z.object({
  email: optionalString,
  phone: optionalString,
  password: optionalString,
  data: metadataObject,
  ...pkceFields,
});

export function signup(deps: Deps): RequestHandler {
  // Reference §6.1: anonymous sign-ins have their own hourly bucket (burst = limit); other sign-ups the
  // OTP-group rate (RATE_LIMIT_OTP per 5 min, burst 30) in a bucket of their own. Both shared by instances.
  const { rateLimit } = deps.config;
  const anonymousLimit: SharedLimit = { name: 'anonymous', limit: rateLimit.anonymousUsers, windowSeconds: 3600 };
  const signupLimit: SharedLimit = { name: 'signup', limit: rateLimit.otp, windowSeconds: 300, burst: burstFor(rateLimit.otp) };
  const leases = new LeaseBook();
  return async (req, res) => {
    const body = validate(SignupBody, req.body);
    await takeSharedLimit(deps, !body.email && !body.phone ? anonymousLimit : signupLimit, sharedLimitClient(deps, req), leases);
    const client = clientInfo(deps, req);
    const data = body.data ?? {};
    if (body.email && body.phone) {
      throw new ApiError(400, ErrorCode.validation_failed, 'Only an email address or phone number should be provided on signup.');
    }
    if (!body.email && !body.phone) {
      res.json(await signInAnonymously(deps, { data, client }));
      return;
    }
    if (!body.password) throw new ApiError(400, ErrorCode.validation_failed, 'Signup requires a valid password');
    if (body.phone) {
      res.json((await signUpWithPhone(deps, { phone: body.phone, password: body.password, data, client })).body);
      return;
    }
    const redirectTo = typeof req.query.redirect_to === 'string' ? req.query.redirect_to : undefined;
    const result = await signUpWithEmail(deps, {
      email: body.email ?? '',
      password: body.password,
      data,
      client,
      confirmation: { redirectTo, codeChallenge: body.code_challenge, codeChallengeMethod: body.code_challenge_method },
    });
    res.json(result.body);
  };
}
