// POST /logout?scope=global|local|others (reference §1.4.9) → 204, no body.
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { logout as endSessions, type LogoutScope } from '../services/sessions/sessions';

const SCOPES: readonly LogoutScope[] = ['global', 'local', 'others'];

export function logout(deps: Deps): RequestHandler {
  return async (req, res) => {
    const { user, session } = userOf(req);
    const raw = typeof req.query.scope === 'string' && req.query.scope !== '' ? req.query.scope : 'global';
    const scope = SCOPES.find((s) => s === raw);
    if (!scope) throw new ApiError(400, ErrorCode.validation_failed, `Unsupported logout scope "${raw}"`);
    await endSessions(deps, { user, sessionId: session?.id, scope, client: clientInfo(deps, req) });
    res.status(204).end();
  };
}
