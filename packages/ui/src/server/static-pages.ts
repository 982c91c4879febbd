// Serves a screen bundle built by Vite: hashed assets cached for a year, HTML never cached (so a deploy is seen at
// once), every HTML answer with the strict CSP, and client-side routes answered with the index page.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { contentSecurityPolicy, PAGE_SECURITY_HEADERS } from './content-security-policy';

export interface StaticPagesOptions {
  /** The folder Vite wrote (index.html and assets/). */
  dir: string;
  /** Extra CSP sources per directive. */
  csp?: Readonly<Record<string, string>>;
  /** Path prefixes under the mount point that are client-side routes answered with index.html (default: all). */
  spaFallback?: boolean;
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** Sets the headers of an HTML answer. */
export function setPageHeaders(res: Response, csp?: Readonly<Record<string, string>>): void {
  res.setHeader('content-security-policy', contentSecurityPolicy(csp));
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) res.setHeader(name, value);
  res.setHeader('cache-control', 'no-store');
}

/** True where the bundle was built (the service still starts without it, and says so where it is asked for). */
export function pagesBuilt(dir: string): boolean {
  return existsSync(path.join(dir, 'index.html'));
}

/** An Express router for a built bundle; mount it at the screens' base path. */
export function staticPages(options: StaticPagesOptions): Router {
  const router = express.Router();
  const indexFile = path.join(options.dir, 'index.html');
  let index: string | undefined;
  const sendIndex = (_req: Request, res: Response) => {
    index ??= readFileSync(indexFile, 'utf8');
    setPageHeaders(res, options.csp);
    res.type('html').send(index);
  };
  router.use(
    '/assets',
    express.static(path.join(options.dir, 'assets'), {
      immutable: true,
      maxAge: YEAR_SECONDS * 1000,
      index: false,
      fallthrough: false,
      setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
    }),
  );
  router.get('/', sendIndex);
  router.use(
    express.static(options.dir, {
      index: false,
      setHeaders: (res, file) => {
        if (file.endsWith('.html')) setPageHeaders(res, options.csp);
        else res.setHeader('cache-control', 'no-cache');
      },
    }),
  );
  if (options.spaFallback !== false) {
    router.get(/.*/, (req, res, next) => (req.accepts(['html', 'json']) === 'html' ? sendIndex(req, res) : next()));
  }
  return router;
}
