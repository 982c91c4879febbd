import express, { type Express } from 'express';
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
import { prepareDummyPasswordCheck } from './services/sessions';

/** Builds the Express app from deps; no globals, no listening (see http/server.ts). */
export function createApp(deps: Deps): Express {
  prepareDummyPasswordCheck(deps.config.security.bcryptCost);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(clientAddresses(deps));
  app.use(requestLogging({ logger: deps.log, clientAddress: clientAddressOfRequest }));
  if (deps.telemetry) app.use(deps.telemetry.httpMiddleware(matchedRoute));
  const publisher = deps.publisher;
  if (publisher) {
    // A change queues its publish jobs in its transaction, committed by the time the answer is sent.
    // Only a successful write to zones, records or nameservers can have queued a job; other requests leave the
    // publisher to its poll.
    app.use((req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD' && /^\/(zone|zone_record|nameserver)(\/|$)/.test(req.path)) {
        res.on('finish', () => res.statusCode < 400 && publisher.kick());
      }
      next();
    });
  }
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    next();
  });

  // A browser pointed at the API's address wants to read about it, not a bare 401: scripts (Accept: */* or
  // application/json) still get the status route.
  app.get('/', (req, res, next) => {
    if (req.accepts(['application/json', 'text/html']) === 'text/html') res.redirect(302, '/documentation');
    else next();
  });
  // Documentation needs neither a body nor a session.
  app.use('/documentation', documentationRouter(allRoutes(), { cookieName: deps.config.session.cookieName, bearer: deps.config.auth.enabled }));

  app.use(jsonBody(deps.config.http.bodyLimit));
  // express-session where sessions are created, renewed and destroyed; a read-only reader of the same cookie
  // and store everywhere else (http/session-reader.ts).
  const store = new KyselySessionStore(deps.db, deps.clock, deps.config.session.ttlSeconds);
  const writable = sessionMiddleware(deps.config.session, store);
  const readOnly = sessionReader(deps.config.session, store);
  app.use('/session', ...writable);
  app.use((req, res, next) => (req.path === '/session' ? next() : readOnly(req, res, next)));
  // The auth server's access tokens, when auth.yml enables them (services/auth-tokens.ts).
  if (deps.authTokens) app.use(bearerAuth(deps.authTokens));

  const api = express.Router();
  mountRoutes(api, allRoutes(), deps);
  app.use(api);

  app.use(unknownRoute);
  app.use(renderError);
  return app;
}

