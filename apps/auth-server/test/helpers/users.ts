// Shortcuts that go through the public API, the way a client would.
import { call } from './http';

export interface Session {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  expires_at: number;
  token_type: string;
  user: Record<string, unknown> & { id: string };
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Signs up with autoconfirm on (the server must have MAILER_AUTOCONFIRM=true) and returns the session. */
export async function signUp(url: string, email = uniqueEmail(), password = 'password-123'): Promise<Session & { email: string; password: string }> {
  const res = await call<Session>(url, 'POST', '/signup', { body: { email, password } });
  if (res.status !== 200 || !res.body.access_token) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return { ...res.body, email, password };
}

export async function signIn(url: string, email: string, password: string): Promise<Session> {
  const res = await call<Session>(url, 'POST', '/token?grant_type=password', { body: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function refresh(url: string, refreshToken: string, newShape = false) {
  return call(url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: refreshToken }, newShape });
}

/** Decodes a JWT payload without verifying it (tests check claims). */
export function claimsOf(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
