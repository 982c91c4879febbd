// The cookie that carries an OpenID Connect sign-in from GET /session/oidc to its callback
// (services/access/oidc-transaction.ts): `<session cookie name>-oidc`, HttpOnly, Path=/session/oidc, ten minutes.
// SameSite=Lax, not Strict: the callback is a top-level navigation coming from the provider's site, and a Strict
// cookie would not come with it.
import type { Request, Response } from 'express';
import type { DnsConfig } from '@keyzone/config';
import { TRANSACTION_SECONDS } from '../services/access/oidc-transaction';

type SessionSettings = DnsConfig['session'];

const nameOf = (settings: SessionSettings) => `${settings.cookieName}-oidc`;

function cookie(settings: SessionSettings, value: string, maxAge: number): string {
  const parts = [`${nameOf(settings)}=${value}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax', 'Path=/session/oidc'];
  if (settings.secure) parts.push('Secure');
  return parts.join('; ');
}

function append(res: Response, value: string): void {
  const header = res.getHeader('Set-Cookie');
  const current = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  res.setHeader('Set-Cookie', [...current, value]);
}

export function setTransactionCookie(res: Response, settings: SessionSettings, value: string): void {
  append(res, cookie(settings, value, TRANSACTION_SECONDS));
}

export function clearTransactionCookie(res: Response, settings: SessionSettings): void {
  append(res, cookie(settings, '', 0));
}

/** The transaction cookie's value in the request, if any (the value is base64url and a dot: no decoding). */
export function transactionCookieOf(req: Request, settings: SessionSettings): string | undefined {
  const name = nameOf(settings);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
