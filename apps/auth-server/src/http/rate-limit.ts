// Request rate limits keyed by client (reference §6.1), counted in PostgreSQL so every instance shares them:
// the client is the first value of the header named by RATE_LIMIT_HEADER (set by a trusted proxy), else of
// Sb-Forwarded-For when SECURITY_SB_FORWARDED_FOR_ENABLED, else the socket address (GoTrue applies no limit
// then; here a deployment without a proxy header is still protected). Over the limit → 429
// over_request_rate_limit with Retry-After.
import type { Request, RequestHandler } from 'express';
import type { Deps } from '../deps';
import { LeaseBook, takeSharedLimit, type SharedLimit } from '../services/platform/shared-rate-limits';
import { clientInfo } from './client';

/**
 * GoTrue's burst of 30 for the 5-minute limits, or a tenth of the limit when that is more: a deployment that
 * allows 3,000 requests per 5 minutes also allows more than 30 at once.
 */
export function burstFor(limit: number): number {
  return Math.max(30, Math.floor(limit / 10));
}

/** The client a limit counts against: the trusted header's first value when configured, else the socket address. */
export function sharedLimitClient(deps: Pick<Deps, 'config'>, req: Request): string {
  return clientInfo(deps, req).limitKey ?? '';
}

/**
 * A limit shared by every instance through PostgreSQL (services/platform/shared-rate-limits.ts), counted per client, or per
 * whatever `keyOf` names (e.g. the signed-in user, after requireUser).
 */
export function sharedRateLimit(
  deps: Pick<Deps, 'config' | 'db' | 'clock'>,
  limit: SharedLimit,
  keyOf: (req: Request) => string = (req) => sharedLimitClient(deps, req),
): RequestHandler {
  const leases = new LeaseBook();
  return (req, _res, next) => {
    const client = keyOf(req);
    // Served from this instance's lease: no statement, and no promise on the hot path.
    if (limit.limit > 0 && leases.take(`${limit.name}:${client}`, deps.clock.now())) {
      next();
      return;
    }
    takeSharedLimit(deps, limit, client, leases).then(() => next(), next);
  };
}
