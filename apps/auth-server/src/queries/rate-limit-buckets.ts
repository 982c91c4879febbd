// auth.rate_limit_buckets: the shared token buckets of @keyzone/db, on the auth schema's table.
import { pruneBuckets as prune, takeBucketTokens as take, type BucketParams } from '@keyzone/db';
import type { Executor } from './users';

export type { BucketParams };

const TABLE = 'auth.rate_limit_buckets';

export function takeBucketTokens(db: Executor, p: BucketParams, lease = 1, giveBack = 0): Promise<{ granted: number; left: number }> {
  return take(db, TABLE, p, lease, giveBack);
}

export function pruneBuckets(db: Executor, olderThan: Date): Promise<void> {
  return prune(db, TABLE, olderThan);
}
