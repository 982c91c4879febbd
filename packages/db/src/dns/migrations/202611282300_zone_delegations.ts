// Zone delegations across groups (issue 38.1): a zone may not be created (renamed, restored, imported) at a name
// above or below a live zone of a group the creator may not manage, unless an administrator who manages that zone
// allowed it here: "zone <zone_id>'s namespace may hold a zone named <name> in group <group_id>". A row records who
// allowed it and when; a withdrawn one keeps who withdrew it and when (deleted_by, deleted_at).
// The reversed-name index finds the live zones below a name (a suffix match) without reading every zone.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.zone_delegations (
      id serial primary key,
      zone_id integer not null references dns.zones(id),
      name text not null check (char_length(name) between 2 and 255),
      group_id integer not null references dns.groups(id),
      allowed_by integer not null references dns.users(id),
      created_at timestamptz not null,
      deleted_by integer references dns.users(id),
      deleted_at timestamptz
    )`.execute(db);
  await sql`create unique index zone_delegations_live_idx on dns.zone_delegations (zone_id, name, group_id) where deleted_at is null`.execute(db);
  await sql`create index zone_delegations_name_idx on dns.zone_delegations (name) where deleted_at is null`.execute(db);
  await sql`create index zones_live_reversed_name_idx on dns.zones (reverse(name) text_pattern_ops) where deleted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists dns.zones_live_reversed_name_idx`.execute(db);
  await sql`drop table if exists dns.zone_delegations`.execute(db);
}
