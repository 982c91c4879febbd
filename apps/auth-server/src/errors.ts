// The one error type of the service. Services throw these; http/errors.ts renders them in the
// shape the request asked for (reference §2.1). The public message goes to the client, the
// cause only to the log.
import { ErrorCode } from './error-codes';

export { ErrorCode };

export interface ApiErrorOptions {
  /** Internal cause, logged, never sent. */
  cause?: unknown;
  /** Extra top-level fields merged into the body (e.g. weak_password: {reasons}). */
  payload?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly payload: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.payload = options.payload;
    this.headers = options.headers;
  }
}

/** OAuth-shaped error: always `{error, error_description}`, never the versioned shapes. */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: string;

  constructor(error: string, description: string, status = 400) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
  }
}

// One constructor per status, as in apierrors.go, so call sites read like the Go handlers.
export const badRequest = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(400, code, message, o);
export const unauthorized = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(401, code, message, o);
export const forbidden = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(403, code, message, o);
export const notFound = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(404, code, message, o);
export const conflict = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(409, code, message, o);
export const unprocessable = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(422, code, message, o);
export const tooManyRequests = (code: ErrorCode, message: string, o?: ApiErrorOptions) => new ApiError(429, code, message, o);
export const internalError = (message: string, cause?: unknown) =>
  new ApiError(500, ErrorCode.unexpected_failure, message, { cause });

/** Messages that clients string-match (reference §2.3): keep them byte for byte. */
export const Messages = {
  invalidCredentials: 'Invalid login credentials',
  emailNotConfirmed: 'Email not confirmed',
  phoneNotConfirmed: 'Phone not confirmed',
  userAlreadyRegistered: 'User already registered',
  refreshTokenNotFound: 'Invalid Refresh Token: Refresh Token Not Found',
  refreshTokenAlreadyUsed: 'Invalid Refresh Token: Already Used',
  tokenExpiredOrInvalid: 'Token has expired or is invalid',
  emailRateLimitExceeded: 'email rate limit exceeded',
  signupsDisabled: 'Signups not allowed for this instance',
  anonymousDisabled: 'Anonymous sign-ins are disabled',
  emailSignupsDisabled: 'Email signups are disabled',
  phoneSignupsDisabled: 'Phone signups are disabled',
  userBanned: 'User is banned',
  unexpectedFailure: 'Unexpected failure, please check server logs for more information',
  sessionNotFound: 'Session from session_id claim in JWT does not exist',
  userFromSubNotFound: 'User from sub claim in JWT does not exist',
  noAuthorization: 'This endpoint requires a valid Bearer token',
  notAdmin: 'User not allowed',
  invalidJwt: 'invalid JWT: unable to parse or verify signature',
  refreshTokenNotValid: 'Refresh token is not valid',
  conflict: 'Request conflicts with another refresh of the same token. Try again.',
} as const;
