// POST /token?grant_type=password|refresh_token (reference §1.4.2). grant_type comes from the
// query string, or from a form/JSON body field of the same name.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import { receivedAt } from '../http/arrival';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { refreshGrant } from '../services/sessions/refresh';
import { passwordGrant } from '../services/sessions/sign-in';
import { optionalString } from './schemas';

const PasswordBody = z.object({ email: optionalString, phone: optionalString, password: optionalString });
const RefreshBody = z.object({ refresh_token: optionalString });

/** A grant beyond password and refresh_token (pkce, later id_token). */
export type GrantHandler = (deps: Deps, body: unknown, req: Parameters<RequestHandler>[0]) => Promise<unknown>;
/** grant_type → handler; buildRouter builds one per app (no module-level registry). */
export type GrantTable = ReadonlyMap<string, GrantHandler>;

export function token(deps: Deps, extraGrants: GrantTable = new Map()): RequestHandler {
  return async (req, res) => {
    const fromQuery = typeof req.query.grant_type === 'string' ? req.query.grant_type : undefined;
    const fromBody = typeof (req.body as Record<string, unknown>)?.grant_type === 'string' ? (req.body as { grant_type: string }).grant_type : undefined;
    const grantType = fromQuery ?? fromBody ?? '';
    const client = clientInfo(deps, req);
    switch (grantType) {
      case 'password': {
        const body = validate(PasswordBody, req.body);
        if (!body.password || (!body.email && !body.phone)) {
          throw new ApiError(400, ErrorCode.invalid_credentials, Messages.invalidCredentials);
        }
        res.json(await passwordGrant(deps, { email: body.email, phone: body.phone, password: body.password, client }));
        return;
      }
      case 'refresh_token': {
        const body = validate(RefreshBody, req.body);
        if (!body.refresh_token) throw new ApiError(400, ErrorCode.validation_failed, Messages.refreshTokenNotValid);
        res.json(await refreshGrant(deps, { refreshToken: body.refresh_token, client, receivedAt: receivedAt(res) }));
        return;
      }
      default: {
        const extra = extraGrants.get(grantType);
        if (extra) {
          res.json(await extra(deps, req.body, req));
          return;
        }
        throw new ApiError(400, ErrorCode.invalid_credentials, 'unsupported_grant_type');
      }
    }
  };
}
