// Request limits shared by every instance (issue 11): a token bucket per limit and client in
// auth.rate_limit_buckets. `limit` requests per `windowSeconds`, at most `burst` at once.
// Time comes from the injected clock, so tests move it instead of waiting.
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { bucketTokens, pruneBuckets, takeBucketToken, type BucketParams } from '../queries/rate-limit-buckets';

export interface SharedLimit {
  /** Prefix of the bucket key, e.g. "verify". */
  name: string;
  limit: number;
  windowSeconds: number;
  burst?: number;
}

/** Roughly one call in this many also deletes buckets idle for a day (they are full again). */
const PRUNE_EVERY = 1000;

export function rateLimitError(retryAfterSeconds: number): ApiError {
  return new ApiError(429, ErrorCode.over_request_rate_limit, 'Request rate limit reached', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}

/** Takes one request from `client`'s bucket for `limit`; throws 429 with Retry-After when empty. */
export async function takeSharedLimit(deps: Pick<Deps, 'db' | 'clock'>, limit: SharedLimit, client: string): Promise<void> {
  if (limit.limit <= 0) throw rateLimitError(limit.windowSeconds);
  const now = deps.clock.now();
  const params: BucketParams = {
    key: `${limit.name}:${client}`,
    ratePerSecond: limit.limit / limit.windowSeconds,
    burst: limit.burst ?? limit.limit,
    now,
  };
  if (Math.random() * PRUNE_EVERY < 1) await pruneBuckets(deps.db, new Date(now.getTime() - 86_400_000));
  if ((await takeBucketToken(deps.db, params)) !== undefined) return;
  const tokens = await bucketTokens(deps.db, params);
  throw rateLimitError((1 - tokens) / params.ratePerSecond);
}
