// createApp(deps) → the Express app. No globals: everything comes from deps, so tests build
// their own. The same router answers at / and at /auth/v1 (the supabase-js URL layout).
import { addressListTest } from '@keyzone/config';
import express, { type Express } from 'express';
import { matchedRoute, requestLogging } from '@keyzone/logging';
import type { Deps } from './deps';
import { ApiError, ErrorCode } from './errors';
import { stampArrival } from './http/arrival';
import { clientAddresses, resolvedAddress } from './http/client';
import { cors } from './http/cors';
import { errorRenderer } from './http/errors';
import { buildRouter } from './routes';
import { adminConsole, CONSOLE_PATH } from './routes/admin-console';
import { hostedPages } from './routes/hosted-pages';
import { RECOVERY_JOB, runRecoveryJob } from './services/email/flows';

export function createApp(deps: Deps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', addressListTest(deps.config.api.trustedProxies));
  app.use(stampArrival(deps.clock));
  app.use(clientAddresses(deps));
  app.use(requestLogging({ logger: deps.log, requestIdHeader: deps.config.api.requestIdHeader, clientAddress: resolvedAddress }));
  if (deps.telemetry) app.use(deps.telemetry.httpMiddleware(matchedRoute));
  app.use(cors());
  const outbox = deps.mailer?.outbox;
  if (outbox) {
    outbox.handle(RECOVERY_JOB, (payload) => runRecoveryJob(deps, payload));
    // Mail a request queued goes out once its transaction has committed, i.e. after the answer.
    app.use((_req, res, next) => {
      res.on('finish', () => outbox.afterRequest());
      next();
    });
  }
  if (deps.config.console.enabled) app.use(CONSOLE_PATH, adminConsole(deps));
  const router = buildRouter(deps);
  // The hosted pages (sign-in, consent, …) answer beside the API, at both of its mount points.
  const pages = hostedPages(deps);
  app.use('/auth/v1', pages, router);
  app.use(pages, router);
  app.use(() => {
    throw new ApiError(404, ErrorCode.unknown, 'Not Found');
  });
  app.use(errorRenderer);
  return app;
}
