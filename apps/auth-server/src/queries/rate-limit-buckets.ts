// SQL for auth.rate_limit_buckets: token buckets every instance shares. Taking a token is one
// statement (refill by elapsed time, then take one if at least one is there), so two instances
// cannot both take the last one.
import { sql } from 'kysely';
import type { Executor } from './users';

const bucketsT = sql.table('auth.rate_limit_buckets');

export interface BucketParams {
  key: string;
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: the most requests that may arrive at once. */
  burst: number;
  now: Date;
}

/** Takes one token; returns the tokens left, or undefined when the bucket had less than one. */
export async function takeBucketToken(db: Executor, p: BucketParams): Promise<number | undefined> {
  const refilled = sql<number>`least(${p.burst}::float8, b.tokens + greatest(0, extract(epoch from (${p.now}::timestamptz - b.updated_at))) * ${p.ratePerSecond}::float8)`;
  const result = await sql<{ tokens: number }>`
    insert into ${bucketsT} as b (key, tokens, updated_at)
    values (${p.key}, ${p.burst - 1}::float8, ${p.now})
    on conflict (key) do update set tokens = ${refilled} - 1, updated_at = ${p.now}
      where ${refilled} >= 1
    returning tokens`.execute(db);
  const row = result.rows[0];
  return row ? Number(row.tokens) : undefined;
}

/** Tokens in the bucket now (after refill): used to tell a refused client when to come back. */
export async function bucketTokens(db: Executor, p: BucketParams): Promise<number> {
  const result = await sql<{ tokens: number }>`
    select least(${p.burst}::float8, b.tokens + greatest(0, extract(epoch from (${p.now}::timestamptz - b.updated_at))) * ${p.ratePerSecond}::float8) as tokens
    from ${bucketsT} b where b.key = ${p.key}`.execute(db);
  return Number(result.rows[0]?.tokens ?? p.burst);
}

/** Buckets untouched for longer than `olderThan` are full again: same as no row. */
export async function pruneBuckets(db: Executor, olderThan: Date): Promise<void> {
  await db.deleteFrom('auth.rate_limit_buckets').where('updated_at', '<', olderThan).execute();
}
