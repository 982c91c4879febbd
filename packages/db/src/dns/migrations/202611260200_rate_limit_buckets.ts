// Login limits shared by every instance (issue 27): token buckets per client and per account, as the auth
// server keeps in auth.rate_limit_buckets.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.rate_limit_buckets (
      key text primary key,
      tokens double precision not null,
      updated_at timestamptz not null
    )`.execute(db);
}
