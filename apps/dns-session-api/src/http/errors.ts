import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDatabaseUnavailable, pgErrorCode } from '@keyzone/db';
import { ApiError, MESSAGES, notFound } from '../errors';

/** Unknown routes: 404 in the same error shape (NicTool's {"msg": "404 Error!..."} is not kept: one shape). */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(notFound(`Cannot ${req.method} ${req.path}`));
};

/**
 * The one error renderer: {statusCode, error, message} (Boom's shape). ApiErrors render as they are, body-parser
 * errors map to 400/413/415, and anything else is a 500 whose cause goes to the log with the request id only.
 */
export const renderError: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  const apiError = toApiError(err);
  if (apiError.statusCode === 500) {
    req.log?.error({ err, reqId: req.id }, 'request failed');
  } else if (apiError.statusCode === 503) {
    req.log?.warn({ err: (err as Error).message, reqId: req.id }, 'database unavailable');
  } else if (apiError.cause !== undefined && !(err instanceof ApiError)) {
    req.log?.warn({ err, reqId: req.id }, 'request refused after a database error');
  }
  res.status(apiError.statusCode);
  for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value);
  const body = apiError.statusCode === 500 ? { ...new ApiError('internal', MESSAGES.internal).body() } : apiError.body();
  res.json(body);
};

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // PostgreSQL refuses NUL in text (22021) and "\u0000" in jsonb (22P05). Routes refuse NUL where they know
  // the field; this is the net under every other string that reaches SQL, so it is the client's 400, not a 500.
  // The statement failed inside its transaction, so nothing of the request was written.
  const sqlState = pgErrorCode(err);
  if (sqlState === '22021' || sqlState === '22P05') {
    return new ApiError('bad_request', `${MESSAGES.invalidPayload}: text may not contain NUL characters`);
  }
  // A deadlock (40P01) or serialization failure (40001): PostgreSQL rolled the transaction back, so nothing was
  // written and the same request may simply be sent again. Lock orders are kept consistent so this should not
  // happen; when it does, the client gets an honest conflict (and the log a warning), not a 500.
  if (sqlState === '40P01' || sqlState === '40001') {
    return new ApiError('conflict', 'A concurrent change conflicted with this request; nothing was written, please retry', undefined, { cause: err });
  }
  // PostgreSQL unreachable (down, restarting, network, pool timeout): nothing was written, and the same request
  // may succeed shortly. The pool replaces broken connections by itself, so recovery needs nothing from us.
  if (isDatabaseUnavailable(err)) {
    return new ApiError('unavailable', 'The database is unavailable; nothing was changed, please retry shortly', undefined, {
      cause: err,
      headers: { 'Retry-After': '5' },
    });
  }
  const status = (err as { status?: unknown; statusCode?: unknown })?.status ?? (err as { statusCode?: unknown })?.statusCode;
  const type = (err as { type?: unknown })?.type;
  // body-parser errors carry `type`; map them to the service's 4xx instead of echoing their text.
  if (type === 'entity.parse.failed' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError('bad_request', MESSAGES.invalidPayload);
  }
  if (type === 'entity.too.large' || status === 413) return new ApiError('payload_too_large', 'Payload content length greater than maximum allowed');
  if (status === 404) return new ApiError('not_found', 'Not Found');
  if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError('bad_request', MESSAGES.invalidPayload);
  return new ApiError('internal', MESSAGES.internal, undefined, { cause: err });
}
