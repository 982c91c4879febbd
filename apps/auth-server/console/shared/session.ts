// The signed-in session of the auth server's own screens. The refresh token lives only in the server's HttpOnly
// cookie (POST /hosted/session); the page holds a short-lived access token in memory and asks for a new one
// when it runs out. Nothing is written to localStorage or sessionStorage.
import { ApiError, requestJson } from '@keyzone/ui/browser';
import { apiUrl } from './api-base';

export interface SessionUser {
  id: string;
  email?: string;
  role?: string;
  factors?: Array<{ id: string; factor_type: string; status: string; friendly_name?: string }>;
}

export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user: SessionUser;
}

interface SessionAnswer {
  access_token: string;
  expires_at: number;
  user: SessionUser;
  continue_to?: string | null;
}

let current: SessionAnswer | undefined;

/** Hands the refresh token of a sign-in to the server's cookie; the page keeps only the access token. */
export async function adoptSession(tokens: { refresh_token: string }, redirectTo?: string): Promise<SessionAnswer> {
  current = await requestJson<SessionAnswer>(apiUrl('/hosted/session'), { body: { refresh_token: tokens.refresh_token, redirect_to: redirectTo } });
  return current;
}

/** An access token from the cookie session, or undefined when signed out. */
export async function accessToken(): Promise<string | undefined> {
  if (current && current.expires_at * 1000 - Date.now() > 30_000) return current.access_token;
  try {
    current = await requestJson<SessionAnswer>(apiUrl('/hosted/session/refresh'), { method: 'POST' });
    return current.access_token;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      current = undefined;
      return undefined;
    }
    throw err;
  }
}

export function sessionUser(): SessionUser | undefined {
  return current?.user;
}

export async function signOut(): Promise<void> {
  current = undefined;
  await requestJson<unknown>(apiUrl('/hosted/session/end'), { method: 'POST' });
}

/** A call of the API as the signed-in user. */
export async function asUser<T>(endpoint: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const token = await accessToken();
  if (!token) throw new ApiError(401, 'You are signed out. Sign in again.');
  return requestJson<T>(apiUrl(endpoint), { ...options, headers: { authorization: `Bearer ${token}` } });
}
