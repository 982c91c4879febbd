// API tokens (issue 32): a user's tokens for the PowerDNS-compatible API, stored as their SHA-256 (a token is 32
// random bytes; it is shown once), each scoped to the user's group or to listed zones, optionally to record names
// matching patterns and to record types. Changes made with one carry its id and name in the history.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.api_tokens (
      id serial primary key,
      user_id integer not null references dns.users(id) on delete cascade,
      name text not null check (char_length(name) between 1 and 100),
      token_hash text not null unique,
      zone_ids integer[],
      name_patterns text[],
      record_types text[],
      created_by integer references dns.users(id) on delete set null,
      created_at timestamptz not null,
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index api_tokens_user_idx on dns.api_tokens (user_id)`.execute(db);
  await sql`alter table dns.audit_log add column api_token_id integer, add column api_token_name text`.execute(db);
}
