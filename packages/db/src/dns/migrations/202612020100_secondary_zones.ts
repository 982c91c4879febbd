// Zones kept as secondaries of an outside primary (issue 44): where the primary is (address, port, the TSIG key that
// signs the transfers), what its SOA said (serial and timers, which drive the refresh), when the zone is next checked,
// the last outcome, and when it expired (no answer from the primary for `expire` seconds: the zone is no longer
// served). `lease_until` keeps two API instances from refreshing the same zone at once. History written by the
// refresher has no user: `audit_log.actor_name` names the system actor instead.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.secondary_zones (
      zone_id integer primary key references dns.zones(id) on delete cascade,
      primary_address text not null,
      primary_port integer not null default 53 check (primary_port between 1 and 65535),
      tsig_key_id integer references dns.tsig_keys(id) on delete set null,
      primary_serial bigint,
      refresh integer,
      retry integer,
      expire integer,
      next_check_at timestamptz not null,
      last_check_at timestamptz,
      last_success_at timestamptz,
      last_transfer_at timestamptz,
      last_error text,
      expired_at timestamptz,
      lease_until timestamptz,
      created_by integer references dns.users(id) on delete set null,
      created_at timestamptz not null
    )`.execute(db);
  await sql`create index secondary_zones_next_check_idx on dns.secondary_zones (next_check_at)`.execute(db);
  await sql`alter table dns.audit_log add column actor_name text`.execute(db);
}
