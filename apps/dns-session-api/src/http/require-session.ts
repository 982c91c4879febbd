import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Deps } from '../deps';
import { missingAuthentication } from '../errors';
import type { Caller } from '../services/access/caller';
import { clientAddressOf } from './client-address';
import { clearSessionCookie } from './session-cookie';

/**
 * Guard for routes with auth 'session'. The session store has already loaded the session (or not: no cookie,
 * a forged signature, an expired or destroyed session, a deleted user all look the same here), so this only
 * checks that a signed-in user is attached. Failure is hapi-cookie's 401 "Missing authentication" with
 * WWW-Authenticate: cookie; a cookie that was sent but rejected is also cleared (hapi's clearInvalid).
 */
export function requireSession(deps: Deps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // A verified bearer token already named the caller (http/bearer-auth.ts).
    if (res.locals.caller) {
      next();
      return;
    }
    const session = req.session;
    if (!session?.userId || !session.groupId || !session.rowId) {
      res.setHeader('WWW-Authenticate', 'cookie');
      if (sentCookie(req, deps.config.session.cookieName)) clearSessionCookie(res, deps.config.session);
      next(missingAuthentication());
      return;
    }
    const caller: Caller = {
      userId: session.userId,
      groupId: session.groupId,
      isAdmin: session.isAdmin === true,
      sessionId: session.rowId,
      user: session.loaded?.user,
      groupName: session.loaded?.groupName,
      ip: clientAddressOf(res),
    };
    const token = session.authToken;
    if (!token || !deps.authTokens) {
      res.locals.caller = caller;
      next();
      return;
    }
    // Exchanged from an access token: valid only while that token's auth session is (checked at most once per
    // session_check_seconds), so a sign-out or a deleted user there ends this cookie too.
    deps.authTokens.isLive(token).then((live) => {
      if (!live) {
        if (sentCookie(req, deps.config.session.cookieName)) clearSessionCookie(res, deps.config.session);
        res.setHeader('WWW-Authenticate', 'cookie');
        next(missingAuthentication());
        return;
      }
      res.locals.caller = caller;
      next();
    }, next);
  };
}

function sentCookie(req: Request, name: string): boolean {
  const header = req.headers.cookie;
  if (!header) return false;
  return header.split(';').some((part) => part.trim().startsWith(`${name}=`));
}
