// The hosted pages' session (issue 40): after a sign-in through the public API the page hands its refresh token over
// and forgets it; the server keeps the session in an HttpOnly cookie scoped to these endpoints, and gives the page
// short-lived access tokens from it, held in memory only. So no secret ever sits in the browser's storage.
//   POST /hosted/session {refresh_token, redirect_to?}  refreshes it at once (the page's copy is then spent), sets
//                                                       the cookie; {access_token, expires_at, user, continue_to}
//   POST /hosted/session/refresh                        a new access token from the cookie (rotating it)
//   POST /hosted/session/end                            ends the session and clears the cookie
// Every one of them is a cookie-authenticated write: refuseCrossSiteWrites (routes/index.ts) plus SameSite=Lax.
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { receivedAt } from '../http/arrival';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { allowedContinuation } from '../services/hosted/continuation';
import { refreshGrant } from '../services/sessions/refresh';
import { logout as endSessions } from '../services/sessions/sessions';
import { findSessionByRefreshToken } from '../services/hosted/session-lookup';

export const HOSTED_SESSION_COOKIE = 'kz-hosted-session';

const StartBody = z.object({ refresh_token: z.string().min(1).max(512), redirect_to: z.string().max(2048).optional() });

/** The cookie lives only for the session endpoints, at whichever mount point (/ or /auth/v1) the page uses. */
function cookieOptions(deps: Pick<Deps, 'config'>, req: Request) {
  const secure = req.secure || deps.config.api.externalUrl.startsWith('https:');
  return { httpOnly: true, secure, sameSite: 'lax' as const, path: `${req.baseUrl}/hosted/session` };
}

function sessionCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === HOSTED_SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}

const signedOut = () => new ApiError(401, ErrorCode.no_authorization, 'Not signed in');

async function refreshInto(deps: Deps, req: Request, res: Response, refreshToken: string) {
  let tokens;
  try {
    tokens = await refreshGrant(deps, { refreshToken, client: clientInfo(deps, req), receivedAt: receivedAt(res) });
  } catch (err) {
    // A spent or revoked session: the cookie is worthless, drop it and say "signed out".
    if (err instanceof ApiError && err.status < 500) {
      res.clearCookie(HOSTED_SESSION_COOKIE, cookieOptions(deps, req));
      throw signedOut();
    }
    throw err;
  }
  res.cookie(HOSTED_SESSION_COOKIE, tokens.refresh_token, cookieOptions(deps, req));
  res.setHeader('Cache-Control', 'no-store');
  return { access_token: tokens.access_token, token_type: 'bearer', expires_in: tokens.expires_in, expires_at: tokens.expires_at, user: tokens.user };
}

/** These answers are for the server's own pages only: no CORS grant, whatever the global CORS reflected. */
export const noCrossOriginRead: RequestHandler = (_req, res, next) => {
  for (const name of ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers']) res.removeHeader(name);
  next();
};

export function startHostedSession(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(StartBody, req.body);
    const session = await refreshInto(deps, req, res, body.refresh_token);
    res.json({ ...session, continue_to: allowedContinuation(deps.config, body.redirect_to) ?? null });
  };
}

export function refreshHostedSession(deps: Deps): RequestHandler {
  return async (req, res) => {
    const token = sessionCookie(req);
    if (!token) throw signedOut();
    res.json(await refreshInto(deps, req, res, token));
  };
}

export function endHostedSession(deps: Deps): RequestHandler {
  return async (req, res) => {
    const token = sessionCookie(req);
    res.clearCookie(HOSTED_SESSION_COOKIE, cookieOptions(deps, req));
    if (token) {
      const found = await findSessionByRefreshToken(deps.db, token);
      if (found) await endSessions(deps, { user: found.user, sessionId: found.sessionId, scope: 'local', client: clientInfo(deps, req) });
    }
    res.status(204).end();
  };
}
