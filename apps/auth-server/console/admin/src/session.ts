// The signed-in admin. Sign-in uses the auth server's public API (password grant, then an MFA challenge when the
// console needs AAL2); its refresh token is then handed to the screens' shared cookie session (shared/session.ts,
// an HttpOnly cookie, the same one the hosted sign-in pages set), so the page only ever holds short-lived access
// tokens in memory and a reload stays signed in. Every admin call carries that admin's own access token, so the
// admin API authorizes and audits them, not the console.
import { ApiError, requestJson, type RequestOptions } from '@keyzone/ui/browser';
import { accessToken } from '../../shared/session';

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_at?: number;
  user: { id: string; email?: string; factors?: Array<{ id: string; factor_type: string; status: string; friendly_name?: string }> };
}

export interface Claims {
  sub: string;
  email?: string;
  role?: string;
  aal?: string;
}

/** The token's claims, for display and routing only: the server verifies every token it is sent. */
export function claimsOf(token: string): Claims {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Claims;
}

export interface ConsoleSettings {
  require_aal2: boolean;
}

export const consoleSettings = () => requestJson<ConsoleSettings>('/admin/console/settings.json');

export const signInWithPassword = (email: string, password: string) =>
  requestJson<Tokens>('/token?grant_type=password', { body: { email, password } });

export async function verifyTotp(tokens: Tokens, factorId: string, code: string): Promise<Tokens> {
  const auth = { authorization: `Bearer ${tokens.access_token}` };
  const challenge = await requestJson<{ id: string }>(`/factors/${encodeURIComponent(factorId)}/challenge`, { body: {}, headers: auth });
  return requestJson<Tokens>(`/factors/${encodeURIComponent(factorId)}/verify`, { body: { challenge_id: challenge.id, code }, headers: auth });
}

export type Api = <T>(url: string, options?: RequestOptions) => Promise<T>;

/** requestJson with the admin's token; `onExpired` runs when the server no longer takes it. */
export function adminApi(tokens: Pick<Tokens, 'access_token'>, onExpired: () => void): Api {
  return withToken(async () => tokens.access_token, onExpired);
}

/** requestJson with a fresh access token from the cookie session for every call. */
export function sessionApi(onExpired: () => void): Api {
  return withToken(accessToken, onExpired);
}

function withToken(token: () => Promise<string | undefined>, onExpired: () => void): Api {
  return async <T,>(url: string, options: RequestOptions = {}) => {
    const current = await token();
    if (!current) {
      onExpired();
      throw new ApiError(401, 'You are signed out. Sign in again.');
    }
    try {
      return await requestJson<T>(url, { ...options, headers: { ...options.headers, authorization: `Bearer ${current}` } });
    } catch (cause) {
      if (cause instanceof ApiError && (cause.code === 'bad_jwt' || cause.code === 'session_expired' || cause.code === 'session_not_found')) onExpired();
      throw cause;
    }
  };
}
