// POST /invite (reference §1.4.11): admin or service-level role (requireAdmin in the route table).
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { inviteUser } from '../services/email/flows';
import { requestRedirect } from './email-common';
import { metadataObject, optionalString } from './schemas';

const InviteBody = z.object({ email: optionalString, data: metadataObject });

export function invite(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(InviteBody, req.body);
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'An email address is required');
    const claims = req.caller?.claims ?? {};
    const actorId = typeof claims.sub === 'string' ? claims.sub : '';
    const role = typeof claims.role === 'string' ? claims.role : '';
    res.json(
      await inviteUser(deps, {
        email: body.email,
        data: body.data ?? {},
        redirectTo: requestRedirect(deps, req),
        client: clientInfo(deps, req),
        actor: { id: actorId, username: role },
      }),
    );
  };
}
