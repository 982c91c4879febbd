// Nameservers, zones (SOA in columns, NicTool style), zone↔nameserver assignments, zone records (RDATA as
// jsonb with RFC field names) and the audit history of every change to a DNS object, user or group.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.nameservers (
      id serial primary key,
      group_id integer not null references dns.groups(id),
      name text not null check (length(name) between 2 and 255),
      address text,
      address6 text,
      ttl integer not null default 3600 check (ttl between 0 and 2147483647),
      description text not null default '',
      export_type text not null default 'bind' check (export_type in ('bind', 'nsd', 'knot', 'powerdns', 'tinydns')),
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index nameservers_group_id_idx on dns.nameservers (group_id)`.execute(db);
  await sql`create unique index nameservers_name_key on dns.nameservers (name) where deleted_at is null`.execute(db);

  await sql`
    create table dns.zones (
      id serial primary key,
      group_id integer not null references dns.groups(id),
      name text not null check (length(name) between 2 and 255),
      description text not null default '',
      mailaddr text not null,
      serial bigint not null check (serial between 0 and 4294967295),
      refresh integer not null check (refresh >= 0),
      retry integer not null check (retry >= 0),
      expire integer not null check (expire >= 0),
      minimum integer not null check (minimum >= 0),
      ttl integer not null check (ttl between 0 and 2147483647),
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index zones_group_id_idx on dns.zones (group_id)`.execute(db);
  await sql`create unique index zones_name_key on dns.zones (name) where deleted_at is null`.execute(db);

  await sql`
    create table dns.zone_nameservers (
      zone_id integer not null references dns.zones(id) on delete cascade,
      nameserver_id integer not null references dns.nameservers(id),
      position integer not null default 0,
      primary key (zone_id, nameserver_id)
    )`.execute(db);
  await sql`create index zone_nameservers_nameserver_id_idx on dns.zone_nameservers (nameserver_id)`.execute(db);

  await sql`
    create table dns.zone_records (
      id serial primary key,
      zone_id integer not null references dns.zones(id),
      owner text not null,
      type text not null,
      ttl integer not null check (ttl between 0 and 2147483647),
      rdata jsonb not null,
      description text not null default '',
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index zone_records_zone_idx on dns.zone_records (zone_id, owner, type) where deleted_at is null`.execute(db);

  await sql`
    create table dns.audit_log (
      id bigserial primary key,
      object_type text not null check (object_type in ('zone', 'zone_record', 'nameserver', 'user', 'group')),
      object_id integer not null,
      zone_id integer,
      action text not null check (action in ('create', 'update', 'delete', 'restore')),
      user_id integer references dns.users(id),
      at timestamptz not null,
      before jsonb,
      after jsonb
    )`.execute(db);
  await sql`create index audit_log_object_idx on dns.audit_log (object_type, object_id, id)`.execute(db);
  await sql`create index audit_log_zone_idx on dns.audit_log (zone_id, id) where zone_id is not null`.execute(db);
}
