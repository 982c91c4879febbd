// The one error type of the service. Every failure a client can cause is an ApiError with a code; the error
// renderer (http/errors.ts) turns it into the hapi/Boom-style body {statusCode, error, message} that NicTool
// clients already parse. Anything that is not an ApiError becomes a 500 with the request id.

export const ERROR_CODES = {
  bad_request: 400,
  invalid_credentials: 401,
  missing_authentication: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** HTTP reason phrases, as Boom writes them in `error`. */
export const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Texts fixed by the NicTool-compatible interface. */
export const MESSAGES = {
  invalidPayload: 'Invalid request payload input',
  missingAuthentication: 'Missing authentication',
  invalidAuthentication: 'Invalid authentication',
  internal: 'An internal server error occurred',
} as const;

export class ApiError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields merged into the body (e.g. validation details outside production). */
    readonly extra?: Record<string, unknown>,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.statusCode = ERROR_CODES[code];
    this.headers = options?.headers;
  }

  /** Response headers that go with the error (Retry-After, Connection: close). */
  readonly headers: Record<string, string> | undefined;

  body(): { statusCode: number; error: string; message: string } & Record<string, unknown> {
    return {
      statusCode: this.statusCode,
      error: REASON_PHRASES[this.statusCode] ?? 'Error',
      message: this.message,
      ...this.extra,
    };
  }
}

export const badRequest = (message: string = MESSAGES.invalidPayload, extra?: Record<string, unknown>) =>
  new ApiError('bad_request', message, extra);
export const notFound = (message: string) => new ApiError('not_found', message);
export const forbidden = (message: string) => new ApiError('forbidden', message);
export const conflict = (message: string) => new ApiError('conflict', message);
export const missingAuthentication = () => new ApiError('missing_authentication', MESSAGES.missingAuthentication);
export const invalidCredentials = () => new ApiError('invalid_credentials', MESSAGES.invalidAuthentication);
