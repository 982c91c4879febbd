// The auth server's hosted pages (issue 40): sign-in, sign-up, password recovery, the OAuth consent screen and the
// landing page of mailed links, one React bundle built by Vite into dist/console/hosted (console/hosted/).
//   GET /hosted/, /hosted/<page>   the pages (staticPages: strict CSP, hashed assets, index for every page path)
//   GET /hosted/consent            the same, with the client's logo origin allowed in img-src
//   GET /oauth/consent             where GET /oauth/authorize sends the browser: → hosted/consent (query kept)
//   GET /                          the landing page of mailed links (SITE_URL's development default): → hosted/
// The bundle's asset URLs are relative, so the pages work at / and under /auth/v1 alike; the redirects are relative
// for the same reason. Without a built bundle the server still starts and these paths answer 404 saying so.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { pagesBuilt, setPageHeaders, staticPages } from '@keyzone/ui/server';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { HOSTED_CONSENT_PATH } from '../services/oauth-server/metadata';
import { clientLogoOrigin } from '../services/hosted/client-logo';

/** <app>/dist/console/hosted, from src/routes (tests) and dist/routes (the build) alike. */
export const HOSTED_PAGES_DIR = path.resolve(__dirname, '..', '..', 'dist', 'console', 'hosted');

/** A redirect to `target` (relative to the mount point) that keeps the query and works at any mount point. */
function redirectWithin(req: Request, res: Response, target: string): void {
  const [pathname = '/', query] = req.originalUrl.split('?', 2);
  // The browser resolves a relative Location against the request's directory: climb from there to the mount point.
  let up = '../'.repeat(Math.max(0, req.path.split('/').length - 2)) || './';
  // "/auth/v1" without its slash: the directory is "/auth/", so name the mount point's last segment.
  if (req.path === '/' && !pathname.endsWith('/')) up = `./${pathname.split('/').pop()}/`;
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(302, `${up}${target}${query !== undefined ? `?${query}` : ''}`);
}

export function hostedPages(deps: Deps, dir: string = HOSTED_PAGES_DIR): Router {
  const router = Router();
  const notBuilt: RequestHandler = () => {
    throw new ApiError(404, ErrorCode.unknown, 'The hosted pages were not built (run pnpm build)');
  };
  if (!pagesBuilt(dir)) {
    router.get(['/', '/hosted', '/hosted/*splat', HOSTED_CONSENT_PATH], notBuilt);
    return router;
  }
  let index: string | undefined;
  router.get('/hosted/consent', async (req, res) => {
    const id = typeof req.query.authorization_id === 'string' ? req.query.authorization_id : '';
    const logo = await clientLogoOrigin(deps, id);
    index ??= readFileSync(path.join(dir, 'index.html'), 'utf8');
    setPageHeaders(res, logo ? { 'img-src': logo } : undefined);
    res.type('html').send(index);
  });
  // The pages' asset URLs are relative to /hosted/, so /hosted itself must gain its slash.
  router.get('/hosted', (req, res, next) => (req.originalUrl.split('?')[0]!.endsWith('/') ? next() : redirectWithin(req, res, 'hosted/')));
  router.use('/hosted', staticPages({ dir }));
  router.get(HOSTED_CONSENT_PATH, (req, res) => redirectWithin(req, res, 'hosted/consent'));
  router.get('/', (req, res) => redirectWithin(req, res, 'hosted/'));
  return router;
}
