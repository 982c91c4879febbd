import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Request id (from the configured header, else generated); also sent back as X-Request-Id. */
      id: string;
      /** Child logger carrying reqId; use it for every line logged while handling the request. */
      log: Logger;
    }
  }
}

export interface RequestLoggingOptions {
  logger: Logger;
  /** REQUEST_ID_HEADER: take the request id from this incoming header when present (e.g. "X-Request-Id"). */
  requestIdHeader?: string;
  /** Id generator when no usable header value exists; default crypto.randomUUID. */
  generateId?: () => string;
}

const MAX_ID_LENGTH = 200;
const MAX_PATH_LENGTH = 2000;

/**
 * Assigns the request id (req.id, req.log, X-Request-Id) and writes exactly one line per request
 * when the response finishes or the connection closes first: reqId, method, parametrized route,
 * path (no query string), status, durationMs, ip. Headers, bodies and query strings are never logged.
 * Mount it first, before body parsers and routers.
 */
export function requestLogging(options: RequestLoggingOptions): RequestHandler {
  const header = options.requestIdHeader?.trim().toLowerCase() || undefined;
  const generateId = options.generateId ?? randomUUID;

  return function requestLoggingMiddleware(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const id = (header && sanitizeRequestId(req.headers[header])) || generateId();
    const log = options.logger.child({ reqId: id });
    req.id = id;
    req.log = log;
    res.setHeader('X-Request-Id', id);
    const route = trackRoute(req);
    // Captured now: routers rewrite req.url while dispatching.
    const method = req.method;
    const path = pathOf(req.originalUrl ?? req.url);

    let logged = false;
    const done = (): void => {
      if (logged) return;
      logged = true;
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const line: Record<string, unknown> = {
        method,
        route: route.value ?? 'unmatched',
        path,
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e3) / 1e3,
        ip: req.ip,
      };
      if (!res.writableFinished) line.aborted = true;
      log.info(line, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** The header value as a request id: first value, printable ASCII only, at most 200 characters. */
export function sanitizeRequestId(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (!first) return undefined;
  const cleaned = first.replace(/[^\x20-\x7e]/g, '').trim().slice(0, MAX_ID_LENGTH);
  return cleaned === '' ? undefined : cleaned;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}…` : path;
}

/**
 * Records the parametrized route at the moment the router matches it (req.baseUrl is the mount
 * path then). Reading req.route/req.baseUrl at finish time would be wrong whenever an error left a
 * sub-router before the app-level error handler answered: Express restores baseUrl on the way out.
 */
function trackRoute(req: Request): { value: string | undefined } {
  const state: { value: string | undefined } = { value: undefined };
  let current: unknown = (req as { route?: unknown }).route;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (route: unknown) => {
      current = route;
      const routePath = (route as { path?: unknown } | undefined)?.path;
      if (routePath !== undefined) state.value = joinRoute(req.baseUrl ?? '', routePath);
    },
  });
  return state;
}

function joinRoute(baseUrl: string, routePath: unknown): string {
  const path = Array.isArray(routePath) ? routePath.map(String).join('|') : String(routePath);
  if (path === '/' && baseUrl !== '') return baseUrl;
  return baseUrl + path;
}
