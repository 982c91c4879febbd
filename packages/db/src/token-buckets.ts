// Token buckets every instance of a service shares, in a table of its own schema (auth.rate_limit_buckets,
// dns.rate_limit_buckets: key text primary key, tokens float8, updated_at timestamptz). Taking a token is one
// statement (refill by elapsed time, then take one if at least one is there), so two instances cannot both take
// the last one.
import { sql, type Kysely } from 'kysely';

export interface BucketParams {
  key: string;
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: the most requests that may arrive at once. */
  burst: number;
  now: Date;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Gives back `giveBack` tokens an earlier lease did not spend, then takes `lease` tokens at once while the bucket
 * holds at least three times that many, else one: an instance then serves its next requests of this key from
 * memory, and a busy key costs one statement per `lease` requests instead of one each. Near the limit every take
 * is single and exact. Returns the tokens granted (0: refused) and those left.
 */
export async function takeBucketTokens(db: AnyDb, table: string, p: BucketParams, lease = 1, giveBack = 0): Promise<{ granted: number; left: number }> {
  const bucketsT = sql.table(table);
  const refilled = sql<number>`least(${p.burst}::float8, b.tokens + ${giveBack}::float8 + greatest(0, extract(epoch from (${p.now}::timestamptz - b.updated_at))) * ${p.ratePerSecond}::float8)`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    // The row is locked and re-read (FOR UPDATE), so the refill and the take see the latest count.
    const updated = await sql<{ tokens: number; granted: number }>`
      with locked as (
        select b.key, ${refilled} as r from ${bucketsT} b where b.key = ${p.key} for update
      ), decided as (
        select key, r, case when r >= ${3 * lease}::float8 then ${lease}::float8 when r >= 1 then 1::float8 else 0::float8 end as g from locked
      )
      update ${bucketsT} as t set tokens = d.r - d.g, updated_at = ${p.now}
      from decided d where t.key = d.key
      returning t.tokens, d.g as granted`.execute(db);
    const row = updated.rows[0];
    if (row) return { granted: Number(row.granted), left: Number(row.tokens) };
    const first = p.burst >= 3 * lease ? lease : Math.min(1, p.burst);
    const inserted = await sql<{ tokens: number }>`
      insert into ${bucketsT} (key, tokens, updated_at) values (${p.key}, ${p.burst - first}::float8, ${p.now})
      on conflict (key) do nothing returning tokens`.execute(db);
    if (inserted.rows[0]) return { granted: first, left: Number(inserted.rows[0].tokens) };
    // Another instance created the bucket just now: take from it.
  }
  return { granted: 0, left: 0 };
}

/** Buckets untouched for longer than `olderThan` are full again: same as no row. */
export async function pruneBuckets(db: AnyDb, table: string, olderThan: Date): Promise<void> {
  await sql`delete from ${sql.table(table)} where updated_at < ${olderThan}`.execute(db);
}
