// The only writer of error bodies (reference §2.1). Picks the legacy or the 2024-01-01 shape
// from X-Supabase-Api-Version, sets x-sb-error-code, and turns anything unexpected into a
// 500 unexpected_failure stamped with the request id; details go to the log only.
import type { ErrorRequestHandler, Request, Response } from 'express';
import { isDatabaseUnavailable } from '@keyzone/db';
import { ApiError, ErrorCode, Messages, OAuthError } from '../errors';

export const API_VERSION_HEADER = 'X-Supabase-Api-Version';
export const API_VERSION_2024_01_01 = '2024-01-01';

/** True when the request asked for the 2024-01-01 error shape (any valid date on or after it). */
export function wantsNewErrorShape(req: Request): boolean {
  const raw = req.get(API_VERSION_HEADER);
  if (!raw || !/^\d{4}-\d{2}-\d{2}$/.test(raw.trim())) return false;
  const date = raw.trim();
  if (Number.isNaN(Date.parse(`${date}T00:00:00Z`))) return false;
  return date >= API_VERSION_2024_01_01;
}

export function sendApiError(req: Request, res: Response, err: ApiError, requestId?: string): void {
  res.status(err.status);
  res.setHeader('x-sb-error-code', err.code);
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  let body: Record<string, unknown>;
  if (wantsNewErrorShape(req)) {
    res.setHeader(API_VERSION_HEADER, API_VERSION_2024_01_01);
    body = { code: err.code, message: err.message };
  } else {
    body = { code: err.status, error_code: err.code, msg: err.message };
    if (err.status >= 500 && requestId) body.error_id = requestId;
  }
  res.json({ ...body, ...(err.payload ?? {}) });
}

export const databaseUnavailable = () =>
  new ApiError(503, ErrorCode.database_unavailable, 'The database is unavailable, please retry shortly', { headers: { 'Retry-After': '5' } });

function isBodyParserError(err: unknown): err is { type: string; status: number } {
  return typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type === 'string';
}

export const errorRenderer: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  if (err instanceof OAuthError) {
    res.status(err.status).json({ error: err.error, error_description: err.message });
    return;
  }
  if (err instanceof ApiError) {
    if (err.status >= 500) req.log?.error({ err, cause: err.cause }, 'request failed');
    else if (err.cause !== undefined) req.log?.info({ code: err.code, cause: String(err.cause) }, 'request rejected');
    sendApiError(req, res, err, req.id);
    return;
  }
  if (isBodyParserError(err) && err.type === 'entity.too.large') {
    sendApiError(req, res, new ApiError(413, ErrorCode.request_entity_too_large, 'Request body too large'));
    return;
  }
  // Errors raised by Express itself with a client status (e.g. a malformed %-escape in a path).
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    sendApiError(req, res, new ApiError(status, ErrorCode.validation_failed, (err as Error).message));
    return;
  }
  if (isDatabaseUnavailable(err)) {
    // Retryable: auth-js retries 503s. The connection stays usable (pg replaces broken clients).
    req.log?.warn({ err: (err as Error).message }, 'database unavailable');
    sendApiError(req, res, databaseUnavailable());
    return;
  }
  req.log?.error({ err }, 'unexpected failure');
  sendApiError(req, res, new ApiError(500, ErrorCode.unexpected_failure, Messages.unexpectedFailure), req.id);
};
