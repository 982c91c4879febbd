// NicTool's permission objects (issue 38.4): one live row per group (user_id null) and at most one per user, with
// NicTool's flags; a user's inherit_group_permissions says whether the group's row or the user's own applies.
// A group's usable_ns (the nameservers of the groups above it that its zones may use; null: all of them) is a
// column of the group, which the group's permission object shows as nameserver.usable. Keyzone enforces them as
// limits within its own rules (services/directory/permission-objects.ts); the history records their changes.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

const FLAGS = [
  'group_create', 'group_write', 'group_delete', 'user_create', 'user_write', 'user_delete',
  'nameserver_create', 'nameserver_write', 'nameserver_delete',
  'zone_create', 'zone_write', 'zone_delete', 'zone_delegate',
  'zonerecord_create', 'zonerecord_write', 'zonerecord_delete', 'zonerecord_delegate', 'self_write',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.users add column inherit_group_permissions boolean not null default true`.execute(db);
  await sql`alter table dns.groups add column usable_ns integer[]`.execute(db);
  await sql`
    create table dns.permissions (
      id serial primary key,
      group_id integer references dns.groups(id),
      user_id integer references dns.users(id),
      name text not null default '' check (char_length(name) <= 50),
      inherit boolean not null default true,
      ${sql.raw(FLAGS.map((f) => `${f} boolean not null default false`).join(',\n      '))},
      usable_ns integer[] not null default '{}',  -- a user's object only (shown, not enforced)
      deleted_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((group_id is null) <> (user_id is null))
    )`.execute(db);
  await sql`create unique index permissions_live_group_idx on dns.permissions (group_id) where deleted_at is null and group_id is not null`.execute(db);
  await sql`create unique index permissions_live_user_idx on dns.permissions (user_id) where deleted_at is null and user_id is not null`.execute(db);
  await sql`alter table dns.audit_log drop constraint audit_log_object_type_check`.execute(db);
  await sql`alter table dns.audit_log add constraint audit_log_object_type_check
    check (object_type in ('zone', 'zone_record', 'nameserver', 'user', 'group', 'permission'))`.execute(db);
}
