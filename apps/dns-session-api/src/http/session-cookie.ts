import type { RequestHandler, Response } from 'express';
import session from 'express-session';
import type { DnsConfig } from '@keyzone/config';
import type { UserRow } from '../queries/users';
import type { KyselySessionStore } from './session-store';

declare module 'express-session' {
  interface SessionData {
    /** dns.sessions.id, chosen at login; `session.id` in the login response. */
    rowId: number;
    userId: number;
    groupId: number;
    isAdmin: boolean;
    /**
     * The auth server's access token this session was exchanged for (POST /session {access_token}): its auth
     * session is checked again every session_check_seconds, so the cookie ends with it (issue 27).
     */
    authToken?: string;
    /** Set by the store from the row; lets touch() write last_seen_at at most once a minute. */
    lastSeenAt: number;
    /** Set by the store: the signed-in user and group name as read with the session. Never persisted. */
    loaded: { user: UserRow; groupName: string };
  }
}

type SessionSettings = DnsConfig['session'];

/**
 * express-session over the Kysely store, plus the cookie the interface promises (spec Part 5):
 * `<name>=<signed id>; Max-Age=3600; Expires=<now+1h>; HttpOnly; SameSite=Strict; Path=/` and `; Secure` when
 * configured. express-session writes Expires but never Max-Age, and refuses to send a Secure cookie over plain
 * HTTP behind a TLS proxy it does not trust; so it is told secure=false and the Set-Cookie header is rewritten
 * just before the headers go out (hapi's isSecure likewise only sets the attribute).
 */
export function sessionMiddleware(settings: SessionSettings, store: KyselySessionStore): RequestHandler[] {
  const inner = session({
    name: settings.cookieName,
    secret: settings.secret,
    store,
    resave: false,
    saveUninitialized: false,
    rolling: false,
    // 'keep': with 'destroy', a request whose session could not be read (database down) would have its session
    // deleted when it ends (express-session sees no req.session), logging the user out over a transient error,
    // and the failing delete would reach Express a second time, which then kills the keep-alive socket.
    // Logout destroys the session explicitly (routes/session.ts).
    unset: 'keep',
    cookie: { maxAge: settings.ttlSeconds * 1000, httpOnly: true, sameSite: 'strict', path: '/', secure: false },
  });
  const rewrite: RequestHandler = (_req, res, next) => {
    rewriteSetCookieBeforeHeaders(res, settings);
    next();
  };
  return [rewrite, inner];
}

/** Expires a cookie in the client: `<name>=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ...`. */
export function clearSessionCookie(res: Response, settings: SessionSettings): void {
  const cleared = formatCookie(settings, '', 0, new Date(0));
  const others = currentSetCookies(res).filter((c) => !c.startsWith(`${settings.cookieName}=`));
  res.setHeader('Set-Cookie', [...others, cleared]);
}

function formatCookie(settings: SessionSettings, value: string, maxAge: number, expires: Date): string {
  const parts = [`${settings.cookieName}=${value}`, `Max-Age=${maxAge}`, `Expires=${expires.toUTCString()}`, 'HttpOnly', 'SameSite=Strict', 'Path=/'];
  if (settings.secure) parts.push('Secure');
  return parts.join('; ');
}

function currentSetCookies(res: Response): string[] {
  const header = res.getHeader('Set-Cookie');
  if (header === undefined) return [];
  return Array.isArray(header) ? header : [String(header)];
}

// Wrapped before express-session wraps writeHead, so this runs after it has appended its cookie.
function rewriteSetCookieBeforeHeaders(res: Response, settings: SessionSettings): void {
  const writeHead = res.writeHead;
  res.writeHead = function patchedWriteHead(this: Response, ...args: unknown[]) {
    const cookies = currentSetCookies(this);
    if (cookies.length > 0) {
      const rewritten = cookies.map((cookie) => {
        if (!cookie.startsWith(`${settings.cookieName}=`)) return cookie;
        const value = cookie.slice(settings.cookieName.length + 1).split(';')[0] ?? '';
        if (value === '') return cookie; // already a clearing cookie
        const expiresAttr = /;\s*Expires=([^;]+)/i.exec(cookie)?.[1];
        const expires = expiresAttr ? new Date(expiresAttr) : new Date(Date.now() + settings.ttlSeconds * 1000);
        return formatCookie(settings, value, settings.ttlSeconds, expires);
      });
      this.setHeader('Set-Cookie', rewritten);
    }
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
}
