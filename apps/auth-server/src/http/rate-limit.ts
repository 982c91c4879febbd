// Request rate limits keyed by client (reference §6.1): the key is the first value of the header
// named by RATE_LIMIT_HEADER (set by a trusted proxy), else Sb-Forwarded-For when
// SECURITY_SB_FORWARDED_FOR_ENABLED; with neither, GoTrue applies no IP-based limit, nor do the
// in-process limits here. The shared limits (sharedRateLimit) fall back to the socket address.
// Over the limit → 429 over_request_rate_limit.
import type { Request, RequestHandler } from 'express';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { TokenBuckets, type BucketOptions } from '../services/rate-limits';
import { takeSharedLimit, type SharedLimit } from '../services/shared-rate-limits';
import { clientInfo, rateLimitKey } from './client';

export { rateLimitKey };

/** A limiter to call from inside a handler (when the body decides which bucket applies). */
export function requestLimiter(deps: Pick<Deps, 'config' | 'clock'>, options: BucketOptions): (req: Request) => void {
  const buckets = new TokenBuckets(options, deps.clock);
  return (req) => {
    const key = rateLimitKey(deps, req);
    if (key !== undefined && !buckets.take(key)) {
      throw new ApiError(429, ErrorCode.over_request_rate_limit, 'Request rate limit reached');
    }
  };
}

export function rateLimit(deps: Pick<Deps, 'config' | 'clock'>, options: BucketOptions): RequestHandler {
  const check = requestLimiter(deps, options);
  return (req, _res, next) => {
    check(req);
    next();
  };
}

/**
 * The client a shared limit counts against: the trusted header's first value when configured,
 * else the socket address. Unlike the in-process limits above, the guards against code guessing
 * and mail floods always apply.
 */
export function sharedLimitClient(deps: Pick<Deps, 'config'>, req: Request): string {
  return clientInfo(deps, req).limitKey ?? '';
}

/** A limit shared by every instance through PostgreSQL (services/shared-rate-limits.ts). */
export function sharedRateLimit(deps: Pick<Deps, 'config' | 'db' | 'clock'>, limit: SharedLimit): RequestHandler {
  return async (req, _res, next) => {
    await takeSharedLimit(deps, limit, sharedLimitClient(deps, req));
    next();
  };
}
