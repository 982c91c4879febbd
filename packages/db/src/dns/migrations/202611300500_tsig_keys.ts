// TSIG keys (issue 44): a user's keys for Keyzone's DNS listener (zone transfers, RFC 2136 updates), scoped as API
// tokens are (zones, record-name patterns, types) plus whether the key may transfer whole zones. HMAC needs the
// secret itself, so it is kept sealed (AES-256-GCM under a key from dns.yml), never in clear. Key names are DNS
// names the messages carry: unique among the keys in force. Changes made with one name it in the history.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.tsig_keys (
      id serial primary key,
      user_id integer not null references dns.users(id) on delete cascade,
      name text not null check (char_length(name) between 1 and 253),
      algorithm text not null check (algorithm in ('hmac-sha256', 'hmac-sha512')),
      secret_sealed text not null,
      zone_ids integer[],
      name_patterns text[],
      record_types text[],
      allow_transfer boolean not null default false,
      created_by integer references dns.users(id) on delete set null,
      created_at timestamptz not null,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create unique index tsig_keys_name_in_force_idx on dns.tsig_keys (name) where revoked_at is null`.execute(db);
  await sql`create index tsig_keys_user_idx on dns.tsig_keys (user_id)`.execute(db);
  await sql`alter table dns.audit_log add column tsig_key_id integer, add column tsig_key_name text`.execute(db);
}
