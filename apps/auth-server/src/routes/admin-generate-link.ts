// POST /admin/generate_link (reference §1.4.14), guarded by requireAdmin. redirect_to comes from
// the query (what auth-js sends), then the body, then the header, and obeys the allow-list.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { generateLink } from '../services/admin/generate-link';
import { adminActor } from './admin-users';
import { requestRedirect } from './email-common';
import { metadataObject, optionalString } from './schemas';

const GenerateLinkBody = z.object({
  type: optionalString,
  email: optionalString,
  new_email: optionalString,
  password: optionalString,
  data: metadataObject,
  redirect_to: optionalString,
});

export function adminGenerateLink(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(GenerateLinkBody, req.body);
    if (!body.type) throw new ApiError(400, ErrorCode.validation_failed, 'type is required');
    if (!body.email) throw new ApiError(400, ErrorCode.validation_failed, 'An email address is required');
    res.json(
      await generateLink(deps, {
        type: body.type,
        email: body.email,
        newEmail: body.new_email,
        password: body.password,
        data: body.data,
        redirectTo: requestRedirect(deps, req),
        actor: adminActor(req),
        client: clientInfo(deps, req),
      }),
    );
  };
}
