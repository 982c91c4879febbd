// A cookie-authenticated write must come from the service's own pages. SameSite cookies already keep most
// cross-site requests unauthenticated, but not a sibling subdomain (same site, other origin) nor old browsers, so
// the origin is checked as well: Sec-Fetch-Site where the browser sends it, Origin otherwise. A request with
// neither (curl, a server-side client) carries no ambient browser credentials of a victim and passes.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CrossSiteWriteOptions {
  /** Origins besides the request's own that may write (e.g. a separately hosted console). */
  allowedOrigins?: readonly string[];
  /** Answers the refusal in the service's own error shape. */
  refuse(req: Request, res: Response): void;
}

/** The origin the request was sent to, as the browser would name it (the Host header, the scheme Express trusts). */
function ownOrigin(req: Request): string | undefined {
  const host = req.get('host');
  return host ? `${req.protocol}://${host}` : undefined;
}

/** True when a browser tells us the request did not come from a page of an allowed origin. */
export function isCrossSiteWrite(req: Request, allowedOrigins: readonly string[] = []): boolean {
  if (SAFE_METHODS.has(req.method)) return false;
  const origin = req.get('origin');
  const allowed = (candidate: string) => candidate === ownOrigin(req) || allowedOrigins.includes(candidate);
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite === 'same-origin' || fetchSite === 'none') return false;
  if (fetchSite) return !(origin && allowed(origin));
  if (origin === undefined) return false;
  return origin === 'null' || !allowed(origin);
}

/** Middleware: refuses unsafe methods that a browser reports as sent from another origin. */
export function refuseCrossSiteWrites(options: CrossSiteWriteOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (isCrossSiteWrite(req, options.allowedOrigins)) {
      options.refuse(req, res);
      return;
    }
    next();
  };
}
