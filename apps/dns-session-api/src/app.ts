import path from 'node:path';
import { addressListTest } from '@keyzone/config';
import express, { type Express, type Request, type RequestHandler } from 'express';
import { pagesBuilt, refuseCrossSiteWrites, staticPages } from '@keyzone/ui/server';
import { matchedRoute, requestLogging } from '@keyzone/logging';
import type { Deps } from './deps';
import { bearerAuth } from './http/bearer-auth';
import { clientAddresses, clientAddressOfRequest } from './http/client-address';
import { jsonBody } from './http/json-body';
import { renderError, unknownRoute } from './http/errors';
import { mountRoutes } from './http/mount';
import { sessionMiddleware } from './http/session-cookie';
import { sessionReader } from './http/session-reader';
import { KyselySessionStore } from './http/session-store';
import { documentationRouter } from './routes/documentation';
import { allRoutes } from './routes';
import { powerDnsApiRouter } from './routes/powerdns-api';
import { prepareDummyPasswordCheck } from './services/access/sessions';
import { forbidden } from './errors';

/** The console's Vite build (dist/console), the same folder whether this runs from dist/ or, in tests, from src/. */
export const CONSOLE_DIR = path.join(__dirname, '..', 'dist', 'console');

/** Builds the Express app from deps; no globals, no listening (see http/server.ts). */
export function createApp(deps: Deps): Express {
  prepareDummyPasswordCheck(deps.config.security.bcryptCost);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', addressListTest(deps.config.http.trustedProxies));

  // Every answer is about live state: no cache keeps it (set with the client address: one layer fewer per request).
  const resolveClientAddress = clientAddresses(deps);
  app.use((req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    resolveClientAddress(req, res, next);
  });
  app.use(requestLogging({ logger: deps.log, clientAddress: clientAddressOfRequest }));
  if (deps.telemetry) app.use(deps.telemetry.httpMiddleware(matchedRoute));
  const publisher = deps.publisher;
  if (publisher) {
    // A change queues its publish jobs in its transaction, committed by the time the answer is sent.
    // Only a successful write to zones, records or nameservers can have queued a job; other requests leave the
    // publisher to its poll.
    app.use((req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD' && /^\/(zone|zone_record|nameserver)(\/|$)/i.test(req.path)) {
        res.on('finish', () => res.statusCode < 400 && publisher.kick());
      }
      next();
    });
  }

  // A browser pointed at the API's address gets the console (issue 42), or the documentation where the console
  // was not built: scripts (Accept: */* or application/json) still get the status route at `/`.
  app.use(consolePages(deps.consoleDir ?? CONSOLE_DIR));
  // Documentation needs neither a body nor a session.
  app.use('/documentation', documentationRouter(allRoutes(), { cookieName: deps.config.session.cookieName, bearer: deps.config.auth.enabled }));

  // The PowerDNS-compatible API (issue 32): its own wire (bare JSON, {"error"}) and its own auth (API tokens).
  app.use('/api', powerDnsApiRouter(deps));

  // Every write of the cookie-session API must come from this origin's own pages, whatever a page does: a write a
  // browser reports as sent from another origin (Sec-Fetch-Site, else Origin) is refused before its body is read.
  // The PowerDNS API above authenticates with tokens a browser never attaches by itself, so it is not affected.
  app.use(refuseCrossSiteWrites({
    refuse: (_req, res) => {
      const err = forbidden('A write from a page of another origin is refused (cross-site request)');
      res.status(err.statusCode).json(err.body());
    },
  }));
  app.use(jsonBody(deps.config.http.bodyLimit));
  // express-session where sessions are created, renewed and destroyed; a read-only reader of the same cookie
  // and store everywhere else (http/session-reader.ts).
  const store = new KyselySessionStore(deps.db, deps.clock, deps.config.session.ttlSeconds);
  const writable = sessionMiddleware(deps.config.session, store);
  const readOnly = sessionReader(deps.config.session, store);
  app.use(onPath(['/session', '/session/oidc/callback'], writable, readOnly));
  // The auth server's access tokens, when auth.yml enables them (services/auth-tokens.ts).
  if (deps.authTokens) app.use(bearerAuth(deps.authTokens));

  mountRoutes(app, allRoutes(), deps);

  app.use(unknownRoute);
  app.use(renderError);
  return app;
}

/**
 * One layer in place of two path-matched ones: `handlers` in turn on each of `paths` as Express's routes match it (any
 * case, with or without a trailing slash), `otherwise` elsewhere.
 */
function onPath(paths: string[], handlers: RequestHandler[], otherwise: RequestHandler): RequestHandler {
  const matches = (requested: string) => {
    const lower = requested.toLowerCase();
    return paths.some((path) => lower === path || lower === `${path}/`);
  };
  return (req, res, next) => {
    if (!matches(req.path)) return otherwise(req, res, next);
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined || i === handlers.length) return next(err);
      const handler = handlers[i++] as RequestHandler;
      void handler(req, res, step);
    };
    step();
  };
}


/**
 * The console's pages: `/` for a browser (Accept prefers HTML) and the hashed files under /assets. The console
 * routes on the hash (#/zones/12), so no other path is ever its: every API path stays the API's. Without a
 * build the service starts all the same, and `/` sends a browser to the documentation.
 */
function consolePages(dir: string): RequestHandler {
  const built = pagesBuilt(dir);
  const pages = built ? staticPages({ dir, spaFallback: false }) : undefined;
  const wantsPage = (req: Request) => req.path === '/' && req.accepts(['application/json', 'text/html']) === 'text/html';
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (wantsPage(req)) return pages ? pages(req, res, next) : res.redirect(302, '/documentation');
    if (pages && req.path.startsWith('/assets/')) return pages(req, res, next);
    next();
  };
}
