import type { NextFunction, Request, Response, Router } from 'express';
import type { Deps } from '../deps';
import { ApiError } from '../errors';
import { assertPermitted } from '../services/directory/permission-objects';
import type { AnyRoute, Reply } from './route';
import { requireSession } from './require-session';
import { emptyQuery, noPayload } from './schemas';
import { validate } from './validate';

/** Express route paths use ':id'; nothing else to translate (OpenAPI gets '{id}', see openapi.ts). */
export function mountRoutes(router: Pick<Router, 'get' | 'post' | 'put' | 'patch' | 'delete'>, routes: AnyRoute[], deps: Deps): void {
  const detailedErrors = deps.config.env !== 'production';
  const checkResponses = deps.config.env === 'test';
  for (const route of routes) {
    const detailed = detailedErrors && route.badRequest !== 'generic';
    const handle = async (req: Request, res: Response) => {
      const input = {
        params: route.params ? validate(route.params, req.params, 'params', { detailed }) : undefined,
        // An operation refuses what it does not take (a query parameter, a payload) instead of ignoring it,
        // so a misspelt or misplaced field is a 400 naming it, never a silent no-op. Without a query string
        // or a body there is nothing to refuse (the hot reads skip parsing them).
        query:
          route.query === undefined && !req.url.includes('?')
            ? {}
            : validate(route.query ?? emptyQuery, req.query ?? {}, 'query', { detailed }),
        body: route.body === undefined && req.body === undefined ? undefined : validate(route.body ?? noPayload, req.body, 'payload', { detailed }),
      };
      if (route.auth === 'session' && route.permission) {
        const flags = typeof route.permission === 'function' ? route.permission(input, res.locals.caller) : route.permission;
        await assertPermitted(deps.db, res.locals.caller, flags);
      }
      const reply: Reply | void =
        route.auth === 'session'
          ? await route.handler(input, { deps, req, res, caller: res.locals.caller })
          : await route.handler(input, { deps, req, res });
      if (!reply || res.headersSent) return;
      const status = reply.status ?? 200;
      if (checkResponses) checkResponse(route, status, reply.body);
      sendJson(res, status, reply.body);
    };
    const middlewares = route.auth === 'session' ? [requireSession(deps)] : [];
    router[route.method](route.path, ...middlewares, (req: Request, res: Response, next: NextFunction) => {
      handle(req, res).catch(next);
    });
  }
}

/**
 * What res.status().json() sends for these answers (no ETag, no 304: the app turns both off), without
 * Express's per-call checks and header lookups: a measurable share of a cheap read (bench/README-dns.md).
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body) ?? '';
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  // Set here, not left to Node: a HEAD answer carries the length its GET would have.
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Under NODE_ENV=test every 2xx body must match the schema the route documents. */
function checkResponse(route: AnyRoute, status: number, body: unknown): void {
  const schema = route.responses[status]?.schema;
  if (status >= 300) return;
  if (!route.responses[status]) {
    throw new ApiError('internal', `${route.method.toUpperCase()} ${route.path} answered ${status}, which it does not document`);
  }
  if (!schema) return;
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new ApiError('internal', `${route.method.toUpperCase()} ${route.path} response does not match its schema`, undefined, {
      cause: result.error,
    });
  }
}
