// Request rate limits keyed by client (reference §6.1): the key is the first value of the header
// named by RATE_LIMIT_HEADER (set by a trusted proxy), else Sb-Forwarded-For when
// SECURITY_SB_FORWARDED_FOR_ENABLED; with neither, GoTrue applies no IP-based limit, nor do we.
// Over the limit → 429 over_request_rate_limit.
import type { Request, RequestHandler } from 'express';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { TokenBuckets, type BucketOptions } from '../services/rate-limits';

export function rateLimitKey(deps: Pick<Deps, 'config'>, req: Request): string | undefined {
  const { config } = deps;
  const header = config.rateLimit.header ? req.get(config.rateLimit.header) : undefined;
  const forwarded = !header && config.security.sbForwardedForEnabled ? req.get('sb-forwarded-for') : undefined;
  const key = (header ?? forwarded)?.split(',')[0]?.trim();
  return key || undefined;
}

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
