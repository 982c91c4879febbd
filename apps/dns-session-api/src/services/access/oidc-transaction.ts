// The state of one OpenID Connect sign-in between GET /session/oidc and its callback, kept in the browser that
// started it: a short-lived HttpOnly cookie, HMAC-signed with a key derived from the session secret, so no
// instance has to remember it and no other browser can finish the sign-in (a callback URL alone is useless without
// the cookie that carries its PKCE verifier and nonce). Once a callback used it, the state is remembered as spent
// until it expires, so the same callback replayed to this instance is refused before the provider is asked again;
// the provider refuses a code used twice anyway.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TRANSACTION_SECONDS = 600;
const MAX_SPENT = 10_000;

export interface OidcTransaction {
  state: string;
  nonce: string;
  /** The PKCE code_verifier. */
  verifier: string;
  /** Where the console goes once signed in: a same-origin path. */
  redirectTo: string;
  /** Unix ms after which the callback is refused. */
  expiresAt: number;
}

const random = (): string => randomBytes(32).toString('base64url');

export function newTransaction(redirectTo: string, now: Date): OidcTransaction {
  return { state: random(), nonce: random(), verifier: random(), redirectTo, expiresAt: now.getTime() + TRANSACTION_SECONDS * 1000 };
}

export function codeChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export class TransactionCodec {
  private readonly key: Buffer;
  private readonly spent = new Map<string, number>();

  constructor(sessionSecret: string) {
    this.key = createHmac('sha256', sessionSecret).update('keyzone dns-session-api oidc transaction').digest();
  }

  seal(transaction: OidcTransaction): string {
    const payload = Buffer.from(JSON.stringify(transaction)).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The transaction of a cookie value whose signature holds and which has not expired; else undefined. */
  open(value: string | undefined, now: Date): OidcTransaction | undefined {
    if (!value) return undefined;
    const [payload, mac, extra] = value.split('.');
    if (!payload || !mac || extra !== undefined) return undefined;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let parsed: Partial<OidcTransaction>;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<OidcTransaction>;
    } catch {
      return undefined;
    }
    const { state, nonce, verifier, redirectTo, expiresAt } = parsed;
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string' || typeof redirectTo !== 'string') return undefined;
    if (typeof expiresAt !== 'number' || expiresAt <= now.getTime()) return undefined;
    return { state, nonce, verifier, redirectTo, expiresAt };
  }

  /** Marks the state spent; false when it already was (a replayed callback). */
  spend(transaction: OidcTransaction, now: Date): boolean {
    const t = now.getTime();
    if ((this.spent.get(transaction.state) ?? 0) > t) return false;
    if (this.spent.size >= MAX_SPENT) {
      for (const [state, until] of this.spent) if (until <= t) this.spent.delete(state);
      if (this.spent.size >= MAX_SPENT) this.spent.delete(this.spent.keys().next().value as string);
    }
    this.spent.set(transaction.state, transaction.expiresAt);
    return true;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

/** Constant-time comparison of two strings. */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A `redirect_to` the console may ask for: a path on this origin (`/`, `/#/zones`), never `//host`, `/\host`, a
 * scheme or control characters. Undefined when it is not one.
 */
export function sameOriginPath(value: string): string | undefined {
  if (value.length > 2048 || !value.startsWith('/') || value.startsWith('//') || [...value].some((c) => c === '\\' || c < ' ' || c === '\u007f')) return undefined;
  const base = new URL('http://console.invalid/');
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return undefined;
  }
  return url.origin === base.origin ? `${url.pathname}${url.search}${url.hash}` : undefined;
}
