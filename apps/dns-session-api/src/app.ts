import express, { type Express } from 'express';
import { requestLogging } from '@keyzone/logging';
import type { Deps } from './deps';
import { jsonBody } from './http/json-body';
import { renderError, unknownRoute } from './http/errors';
import { mountRoutes } from './http/mount';
import { sessionMiddleware } from './http/session-cookie';
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

  app.use(requestLogging({ logger: deps.log }));
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    next();
  });

  // Documentation needs neither a body nor a session.
  app.use('/documentation', documentationRouter(allRoutes(), deps.config.session.cookieName));

  app.use(jsonBody(deps.config.http.bodyLimit));
  app.use(sessionMiddleware(deps.config.session, new KyselySessionStore(deps.db, deps.clock, deps.config.session.ttlSeconds)));

  const api = express.Router();
  mountRoutes(api, allRoutes(), deps);
  app.use(api);

  app.use(unknownRoute);
  app.use(renderError);
  return app;
}
