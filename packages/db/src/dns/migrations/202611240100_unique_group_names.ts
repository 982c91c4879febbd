// Logins name a user as user@group, so a group name must find one group (issue 12): live group names
// become unique service-wide, compared case-insensitively (the sibling-only rule let a sub-group admin
// shadow another group's users). Existing duplicates are renamed "<name>-<id>", the oldest group keeping
// its name; the rename is recorded in the audit log so an operator can tell the users concerned.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    with renamed as (
      update dns.groups g set name = left(g.name, 240) || '-' || g.id, updated_at = now()
      from (
        select id, row_number() over (partition by lower(name) order by id) as n
        from dns.groups where deleted_at is null
      ) d
      where d.id = g.id and d.n > 1
      returning g.id, g.name
    )
    insert into dns.audit_log (object_type, object_id, action, user_id, at, before, after)
    select 'group', r.id, 'update', null, now(), null, jsonb_build_object('name', r.name, 'reason', 'group names became unique service-wide')
    from renamed r`.execute(db);
  await sql`drop index dns.groups_sibling_name_key`.execute(db);
  await sql`create unique index groups_name_key on dns.groups (lower(name)) where deleted_at is null`.execute(db);
}
