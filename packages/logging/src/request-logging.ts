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
  /** The client's address as the app resolved it (behind trusted proxies); default req.ip, the socket's. */
  clientAddress?: (req: Request) => string | undefined;
  /**
   * Paths (exact, without the query string) whose successful requests are logged at debug, not info: a
   * container's health check every 10 s would otherwise write an info line each time. A failed one (status 400 or
   * more, or aborted) stays at info. Default ['/health']; [] logs every request at info.
   */
  quietPaths?: readonly string[];
}

/** The paths whose successful requests requestLogging logs at debug unless told otherwise. */
export const DEFAULT_QUIET_PATHS: readonly string[] = ['/health'];

/** The message of the one line per request (log shippers filter on it). */
export const REQUEST_COMPLETED = 'request completed';

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
  const quietPaths = new Set(options.quietPaths ?? DEFAULT_QUIET_PATHS);

  return function requestLoggingMiddleware(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    const id = (header && sanitizeRequestId(req.headers[header])) || generateId();
    req.id = id;
    // req.log (a child logger carrying reqId) is made on first use: most requests log nothing but the line below.
    (req as unknown as LazyLog)[BASE_LOGGER] = options.logger;
    defineLazyLog(req);
    res.setHeader('X-Request-Id', id);
    const route = trackRoute(req);
    // Captured now: routers rewrite req.url while dispatching.
    const method = req.method;
    const path = pathOf(req.originalUrl ?? req.url);

    // 'close' ends every response, after 'finish' when it was sent whole, alone when the connection went first:
    // one listener, and writableFinished tells the two apart.
    const done = (): void => {
      const line: Record<string, unknown> = {
        reqId: id,
        method,
        route: route.value ?? 'unmatched',
        path,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 1e3) / 1e3,
        ip: options.clientAddress?.(req) ?? req.ip,
      };
      if (!res.writableFinished) line.aborted = true;
      if (quietPaths.has(path) && res.statusCode < 400 && !line.aborted) options.logger.debug(line, REQUEST_COMPLETED);
      else options.logger.info(line, REQUEST_COMPLETED);
    };
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

const BASE_LOGGER = Symbol('keyzone.baseLogger');
const CHILD_LOGGER = Symbol('keyzone.childLogger');
const withLazyLog = new WeakSet<object>();

interface LazyLog {
  id: string;
  [BASE_LOGGER]?: Logger;
  [CHILD_LOGGER]?: Logger;
}

/** req.log as an accessor on the request prototype (defined once), creating the child logger on first read. */
function defineLazyLog(req: Request): void {
  const proto = Object.getPrototypeOf(req) as object;
  if (withLazyLog.has(proto)) return;
  withLazyLog.add(proto);
  Object.defineProperty(proto, 'log', {
    configurable: true,
    enumerable: false,
    get(this: LazyLog) {
      let child = this[CHILD_LOGGER];
      if (!child && this[BASE_LOGGER]) child = this[CHILD_LOGGER] = this[BASE_LOGGER].child({ reqId: this.id });
      return child;
    },
    set(this: LazyLog, value: Logger) {
      this[CHILD_LOGGER] = value;
    },
  });
}

const ROUTE = Symbol('keyzone.route');
const MATCHED = Symbol('keyzone.matchedRoute');
const tracked = new WeakSet<object>();

interface Tracked {
  [ROUTE]?: unknown;
  [MATCHED]?: { value: string | undefined };
  baseUrl?: string;
}

/**
 * Records the parametrized route at the moment the router matches it (req.baseUrl is the mount
 * path then). Reading req.route/req.baseUrl at finish time would be wrong whenever an error left a
 * sub-router before the app-level error handler answered: Express restores baseUrl on the way out.
 * The accessor is defined once on the request prototype, not on each request: an accessor added to
 * every request object changed its shape on the hottest path of both services.
 */
function trackRoute(req: Request): { value: string | undefined } {
  const state: { value: string | undefined } = { value: undefined };
  const target = req as unknown as Tracked;
  target[MATCHED] = state;
  const proto = Object.getPrototypeOf(req) as object;
  if (!tracked.has(proto)) {
    tracked.add(proto);
    Object.defineProperty(proto, 'route', {
      configurable: true,
      enumerable: true,
      get(this: Tracked) {
        return this[ROUTE];
      },
      set(this: Tracked, route: unknown) {
        this[ROUTE] = route;
        const routePath = (route as { path?: unknown } | undefined)?.path;
        const matched = this[MATCHED];
        if (matched && routePath !== undefined) matched.value = joinRoute(this.baseUrl ?? '', routePath);
      },
    });
  }
  return state;
}

function joinRoute(baseUrl: string, routePath: unknown): string {
  const path = Array.isArray(routePath) ? routePath.map(String).join('|') : String(routePath);
  if (path === '/' && baseUrl !== '') return baseUrl;
  return baseUrl + path;
}

/** The parametrized route Express matched for this request (e.g. "/admin/users/:user_id"), once it did. */
export function matchedRoute(req: Request): string | undefined {
  return (req as unknown as Tracked)[MATCHED]?.value;
}
