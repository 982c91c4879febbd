// The read side of cookie sessions for every route but /session (issue 12, performance). Those routes only
// need to know who is calling: this reads the signed cookie express-session wrote, loads the session through
// the same store, and records activity through the same throttled touch. It skips what express-session does on
// every request to be able to write (Session and Cookie objects, two JSON hashes of the session, wrapping
// res.end and res.writeHead), which the profile put at a fifth of a cheap request's CPU. Creating, renewing
// and destroying sessions stays with express-session on /session (app.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Session, SessionData } from 'express-session';
import type { DnsConfig } from '@keyzone/config';
import type { KyselySessionStore } from './session-store';

/** The session id inside express-session's cookie value ("s:<sid>.<HMAC-SHA256, base64>"), or undefined. */
export function unsignSessionCookie(value: string, secret: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('s:')) return undefined;
  const signed = decoded.slice(2);
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const sid = signed.slice(0, dot);
  const expected = Buffer.from(`${sid}.${createHmac('sha256', secret).update(sid).digest('base64').replace(/=+$/, '')}`);
  const given = Buffer.from(signed);
  return expected.length === given.length && timingSafeEqual(expected, given) ? sid : undefined;
}

/** The value of cookie `name` in a Cookie header (the first one, as express-session reads it). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

// A signed cookie is sent again on every request of its session: the value it was checked as, once, is remembered
// (a lookup by the whole value, so only a byte-identical cookie matches) and the HMAC is not computed again.
const VERIFIED_COOKIES_KEPT = 10_000;

export function sessionReader(settings: DnsConfig['session'], store: KyselySessionStore): RequestHandler {
  const verified = new Map<string, string>();
  const sessionIdOf = (raw: string): string | undefined => {
    const known = verified.get(raw);
    if (known !== undefined) return known;
    const sid = unsignSessionCookie(raw, settings.secret);
    if (sid !== undefined) {
      if (verified.size >= VERIFIED_COOKIES_KEPT) verified.clear();
      verified.set(raw, sid);
    }
    return sid;
  };
  return (req, res, next) => {
    const raw = cookieValue(req.headers.cookie, settings.cookieName);
    const sid = raw === undefined ? undefined : sessionIdOf(raw);
    if (sid === undefined) {
      next();
      return;
    }
    store.get(sid, (err, data) => {
      if (err) {
        next(err);
        return;
      }
      if (data) {
        // Read-only here: requireSession and the handlers only read these fields.
        req.session = data as Session & Partial<SessionData>;
        if (store.isDueForTouch(data)) {
          res.on('finish', () => store.touch(sid, data, (touchErr) => touchErr && req.log?.warn({ err: touchErr }, 'recording session activity failed')));
        }
      }
      next();
    });
  };
}
