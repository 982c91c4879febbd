// GET /user and PUT /user (reference §1.4.7).
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { serializeUser } from '../serialize';
import { updateUser } from '../services/sessions/user-update';
import { metadataObject, optionalString, pkceFields } from './schemas';
import { pkceOf, requestRedirect } from './email-common';

export function getUser(deps: Deps): RequestHandler {
  return (req, res) => {
    // requireUser already loaded the user with its identities and factors (one query).
    const { user, identities, factors, claims } = userOf(req);
    // GoTrue: the token's audience must be the request's (X-JWT-AUD header, else JWT_AUD).
    const audience = req.get('x-jwt-aud') || deps.config.jwt.aud;
    const aud = claims.aud;
    if (aud !== undefined && !(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) {
      throw new ApiError(400, ErrorCode.validation_failed, "Token audience doesn't match request audience");
    }
    res.json(serializeUser(user, identities, factors));
  };
}

const UpdateUserBody = z.object({
  data: metadataObject,
  password: optionalString,
  nonce: optionalString,
  email: optionalString,
  phone: optionalString,
  channel: optionalString,
  ...pkceFields,
});

export function putUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    const { user, session, factors } = userOf(req);
    const body = validate(UpdateUserBody, req.body);
    res.json(
      await updateUser(deps, {
        user,
        sessionId: session?.id,
        session,
        factors,
        data: body.data,
        password: body.password,
        nonce: body.nonce,
        client: clientInfo(deps, req),
        emailChange: body.email ? { email: body.email, redirectTo: requestRedirect(deps, req), pkce: pkceOf(body) } : undefined,
        phone: body.phone ?? undefined,
      }),
    );
  };
}
