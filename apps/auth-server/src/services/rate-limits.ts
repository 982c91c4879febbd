// In-memory token buckets, per process, as GoTrue's request limiters (reference §6.1): a bucket
// holds up to `burst` requests and refills at `limit` per `windowSeconds`. Time comes from the
// injected clock.
import type { Clock } from '../deps';

export interface BucketOptions {
  limit: number;
  windowSeconds: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_KEYS = 100_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: BucketOptions,
    private readonly clock: Clock,
  ) {}

  /** Takes one token for `key`; false when the bucket is empty. */
  take(key: string): boolean {
    const now = this.clock.now().getTime();
    const ratePerMs = this.options.limit / (this.options.windowSeconds * 1000);
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, at: now };
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + Math.max(0, now - bucket.at) * ratePerMs);
    bucket.at = now;
    if (this.buckets.size >= MAX_KEYS && !this.buckets.has(key)) this.prune(now, ratePerMs);
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Drops buckets that have refilled completely (they behave exactly like new ones). */
  private prune(now: number, ratePerMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * ratePerMs >= this.options.burst) this.buckets.delete(key);
    }
  }
}
