// Request limits shared by every instance (issue 11): a token bucket per limit and client in
// auth.rate_limit_buckets. `limit` requests per `windowSeconds`, at most `burst` at once.
// Time comes from the injected clock, so tests move it instead of waiting.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { pruneBuckets, takeBucketTokens, type BucketParams } from '../../queries/rate-limit-buckets';

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

/** How long leased tokens may be spent from memory, and how close two takes must be for a key to count as busy. */
const LEASE_MS = 1000;

/**
 * Tokens an instance took from a shared bucket ahead of use (queries/rate-limit-buckets.ts takeBucketTokens), spent
 * from memory for at most a second. Only a busy key leases (this instance went to the bucket for it less than a
 * second ago): a slow client's every request is one exact take, so it never loses tokens to a lease it cannot use.
 * Tokens a lease did not spend are given back to the bucket with this instance's next statement for the key, so a
 * client gets exactly the burst plus the refill however its requests are spread over instances. One book per limit
 * and app, never a module global.
 */
export class LeaseBook {
  private readonly leases = new Map<string, { remaining: number; until: number; lastTake: number }>();

  /** Serves one request from a live lease of `key`; false when the bucket must be asked. */
  take(key: string, now: Date): boolean {
    const lease = this.leases.get(key);
    if (!lease || lease.remaining <= 0 || lease.until <= now.getTime()) return false;
    lease.remaining -= 1;
    return true;
  }

  /** Before asking the bucket: the unspent tokens of an ended lease (to give back) and whether the key is busy. */
  settle(key: string, now: Date): { giveBack: number; busy: boolean } {
    const lease = this.leases.get(key);
    if (!lease) return { giveBack: 0, busy: false };
    const giveBack = lease.remaining;
    lease.remaining = 0;
    return { giveBack, busy: now.getTime() - lease.lastTake < LEASE_MS };
  }

  /** After the bucket answered: `remaining` tokens (granted but not used by this request) kept for a second. */
  keep(key: string, remaining: number, now: Date): void {
    this.leases.delete(key); // re-inserted last, so the oldest entry is the first to go
    if (this.leases.size >= 10_000) this.leases.delete(this.leases.keys().next().value as string);
    this.leases.set(key, { remaining, until: now.getTime() + LEASE_MS, lastTake: now.getTime() });
  }
}

/** Takes one request from `client`'s bucket for `limit`; throws 429 with Retry-After when empty. */
export async function takeSharedLimit(deps: Pick<Deps, 'db' | 'clock' | 'telemetry'>, limit: SharedLimit, client: string, book?: LeaseBook): Promise<void> {
  if (limit.limit <= 0) throw rateLimitError(limit.windowSeconds);
  const now = deps.clock.now();
  const key = `${limit.name}:${client}`;
  if (book?.take(key, now)) return;
  const params: BucketParams = {
    key,
    ratePerSecond: limit.limit / limit.windowSeconds,
    burst: limit.burst ?? limit.limit,
    now,
  };
  if (Math.random() * PRUNE_EVERY < 1) await pruneBuckets(deps.db, new Date(now.getTime() - 86_400_000));
  const { giveBack, busy } = book?.settle(key, now) ?? { giveBack: 0, busy: false };
  const lease = busy ? Math.max(1, Math.floor(params.burst / 10)) : 1;
  const { granted, left } = await takeBucketTokens(deps.db, params, lease, giveBack);
  book?.keep(key, Math.max(0, granted - 1), now);
  if (granted > 0) return;
  deps.telemetry?.count('rate_limit_rejections', { limit: limit.name });
  throw rateLimitError((1 - left) / params.ratePerSecond);
}
