// OAuth scopes: space-separated lists of GoTrue's supported scopes.
import { OAUTH_SCOPES } from '@keyzone/config';

export const Scope = { openid: 'openid', profile: 'profile', email: 'email', phone: 'phone' } as const;

/** The scopes of a space-separated string, each once, in the order given. */
export function parseScopes(value: string | null | undefined): string[] {
  return [...new Set((value ?? '').split(' ').map((s) => s.trim()).filter(Boolean))];
}

/** The first scope the server does not know, if any. */
export function unsupportedScope(scopes: readonly string[]): string | undefined {
  return scopes.find((s) => !(OAUTH_SCOPES as readonly string[]).includes(s));
}

export function coversAll(granted: readonly string[], requested: readonly string[]): boolean {
  const set = new Set(granted);
  return requested.every((s) => set.has(s));
}
