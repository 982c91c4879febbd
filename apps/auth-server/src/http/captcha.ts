// Route guard for captcha (services/platform/captcha.ts). Mounted after the body parser. An admin's bearer token skips
// it, and so do the token grants a browser does not type (refresh_token, pkce, id_token).
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import { bearerToken } from './auth';
import { clientInfo } from './client';
import { captchaTokenOf, verifyCaptcha } from '../services/platform/captcha';

const UNGUARDED_GRANTS = new Set(['refresh_token', 'pkce', 'id_token']);

export function requireCaptcha(deps: Deps): RequestHandler {
  if (!deps.config.security.captcha.enabled) return (_req, _res, next) => next();
  return async (req, _res, next) => {
    const fromBody = (req.body as Record<string, unknown> | undefined)?.grant_type;
    const grant = typeof req.query.grant_type === 'string' ? req.query.grant_type : typeof fromBody === 'string' ? fromBody : undefined;
    if (grant && UNGUARDED_GRANTS.has(grant)) {
      next();
      return;
    }
    if (await isAdminToken(deps, bearerToken(req))) {
      next();
      return;
    }
    await verifyCaptcha(deps, { token: captchaTokenOf(req.body), ip: clientInfo(deps, req).ip });
    next();
  };
}

async function isAdminToken(deps: Deps, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  try {
    const claims = await deps.jwt.verify(token, { now: deps.clock.now() });
    // A token naming an OAuth client (Keyzone's authorization server) carries its user's role, not an admin's rights.
    return claims.client_id === undefined && typeof claims.role === 'string' && deps.config.jwt.adminRoles.includes(claims.role);
  } catch {
    return false;
  }
}
