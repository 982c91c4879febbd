// The admin console (issue 43) at /admin/console/: the built screens (console/admin, bundled by Vite into
// dist/console/admin) under the strict CSP, and the one setting the screens need before sign-in. The console holds
// no power of its own: it signs the admin in through the public API and calls the admin API with their token, so
// requireAdmin authorizes and the audit log records every action under the admin's id.
import path from 'node:path';
import express, { type Router } from 'express';
import { pagesBuilt, staticPages } from '@keyzone/ui/server';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { maskedConfig } from '../services/admin/running-config';

export const CONSOLE_PATH = '/admin/console';

/** Where the build puts the screens; the same from src/routes (tests) and dist/routes (the service). */
export const CONSOLE_DIR = path.resolve(__dirname, '..', '..', 'dist', 'console', 'admin');

export function adminConsole(deps: Pick<Deps, 'config'>, dir: string = CONSOLE_DIR): Router {
  const router = express.Router();
  router.get('/settings.json', (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    res.json({ require_aal2: deps.config.console.requireAal2 });
  });
  if (pagesBuilt(dir)) {
    router.use(staticPages({ dir }));
  } else {
    router.use(() => {
      throw new ApiError(503, ErrorCode.unknown, 'The admin console was not built: run pnpm build');
    });
  }
  return router;
}

/** GET /admin/config (requireAdmin): the running settings with every secret masked. */
export function adminRunningConfig(deps: Pick<Deps, 'config'>): express.RequestHandler {
  return (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    res.json(maskedConfig(deps.config));
  };
}
