// Building the redirects that end browser flows (GET /verify, /callback): parameters in the fragment (implicit
// flow) or the query (PKCE), and the OAuth-style error parameters (reference §1.4.3, §7.3).
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { TokenResponseJson } from '../../serialize';

/** Adds parameters to the fragment (keeping an existing one), sorted as Go's url.Values.Encode. */
export function withFragment(url: string, params: Record<string, string>): string {
  const encoded = new URLSearchParams(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))).toString();
  return url.includes('#') ? `${url}&${encoded}` : `${url}#${encoded}`;
}

/** An implicit flow's session as the fragment carries it (auth-js reads these names). */
export function sessionParams(session: TokenResponseJson): Record<string, string> {
  return {
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    sb: '',
    token_type: session.token_type,
  };
}

/** Adds parameters to the query string, keeping the fragment where it belongs. */
export function withQuery(url: string, params: Record<string, string>): string {
  const hash = url.indexOf('#');
  const base = hash >= 0 ? url.slice(0, hash) : url;
  const fragment = hash >= 0 ? url.slice(hash) : '';
  const encoded = new URLSearchParams(Object.entries(params)).toString();
  return `${base}${base.includes('?') ? '&' : '?'}${encoded}${fragment}`;
}

const OAUTH_ERRORS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  500: 'server_error',
  503: 'temporarily_unavailable',
};

/** `error`, `error_code`, `error_description` for a failure; `unexpected` is true when it must be logged. */
export function errorParams(err: unknown): { params: Record<string, string>; unexpected: boolean } {
  if (err instanceof ApiError) {
    return {
      params: {
        error: OAUTH_ERRORS[err.status] ?? (err.status < 500 ? 'invalid_request' : 'server_error'),
        error_code: err.code,
        error_description: err.message,
      },
      unexpected: err.status >= 500,
    };
  }
  return {
    params: { error: 'server_error', error_code: ErrorCode.unexpected_failure, error_description: Messages.unexpectedFailure },
    unexpected: true,
  };
}

/** The error redirect: in the fragment, and for PKCE flows in the query too (auth-js reads either). */
export function errorLocation(target: string, params: Record<string, string>, pkce: boolean): string {
  const withSb = { ...params, sb: '' };
  return withFragment(pkce ? withQuery(target, withSb) : target, withSb);
}
