import { sql } from 'kysely';
import type { Db } from './db';

export interface GroupRow {
  id: number;
  parent_id: number | null;
  name: string;
  /** Its new zones are signed (DNSSEC) unless they say otherwise. */
  dnssec_default: boolean;
  /** The nameservers of the groups above it that its zones may use (NicTool's usable_ns); null: all of them. */
  usable_ns: number[] | null;
  deleted_at: Date | null;
}

const columns = ['id', 'parent_id', 'name', 'dnssec_default', 'usable_ns', 'deleted_at'] as const;

export async function findGroupById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<GroupRow | undefined> {
  let query = db.selectFrom('dns.groups').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The live root group of that exact name. */
export async function findLiveRootGroupByName(db: Db, name: string): Promise<GroupRow | undefined> {
  return db
    .selectFrom('dns.groups')
    .select(columns)
    .where('name', '=', name)
    .where('parent_id', 'is', null)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
}

export async function insertGroup(db: Db, values: { parentId: number | null; name: string; usableNs?: number[] | null; now: Date }): Promise<GroupRow> {
  return db
    .insertInto('dns.groups')
    .values({ parent_id: values.parentId, name: values.name, usable_ns: values.usableNs ?? null, created_at: values.now, updated_at: values.now })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

export async function updateGroup(
  db: Db,
  id: number,
  changes: { name?: string; parentId?: number | null; deletedAt?: Date | null; dnssecDefault?: boolean; usableNs?: number[] | null },
  now: Date,
): Promise<GroupRow | undefined> {
  return db
    .updateTable('dns.groups')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.parentId !== undefined ? { parent_id: changes.parentId } : {}),
      ...(changes.deletedAt !== undefined ? { deleted_at: changes.deletedAt } : {}),
      ...(changes.dnssecDefault !== undefined ? { dnssec_default: changes.dnssecDefault } : {}),
      ...(changes.usableNs !== undefined ? { usable_ns: changes.usableNs } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

/** Whether `groupId` is `ancestorId` or lies below it (walks up from groupId: cost is the tree's depth). */
export async function isInSubtree(db: Db, ancestorId: number, groupId: number): Promise<boolean> {
  if (ancestorId === groupId) return true;
  const result = await sql<{ found: boolean }>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from dns.groups where id = ${groupId}
      union all
      select g.id, g.parent_id, up.depth + 1 from dns.groups g join up on g.id = up.parent_id where up.depth < 64
    )
    select exists(select 1 from up where id = ${ancestorId}) as found`.execute(db);
  return result.rows[0]?.found === true;
}

export interface GroupMembers {
  subgroups: number;
  users: number;
  zones: number;
  nameservers: number;
}

/** Live subgroups, users, zones and nameservers of a group, to refuse deleting a group that still holds any. */
export async function countLiveMembers(db: Db, groupId: number): Promise<GroupMembers> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('dns.groups')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('parent_id', '=', groupId)
        .where('deleted_at', 'is', null)
        .as('subgroups'),
      eb
        .selectFrom('dns.users')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('group_id', '=', groupId)
        .where('deleted_at', 'is', null)
        .as('users'),
      eb
        .selectFrom('dns.zones')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('group_id', '=', groupId)
        .where('deleted_at', 'is', null)
        .as('zones'),
      eb
        .selectFrom('dns.nameservers')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('group_id', '=', groupId)
        .where('deleted_at', 'is', null)
        .as('nameservers'),
    ])
    .executeTakeFirstOrThrow();
  return { subgroups: Number(row.subgroups), users: Number(row.users), zones: Number(row.zones), nameservers: Number(row.nameservers) };
}

/** The direct children of a group, live or (deleted = true) deleted ones only, by name. */
export async function listSubgroups(db: Db, parentId: number, deleted: boolean): Promise<GroupRow[]> {
  return db
    .selectFrom('dns.groups')
    .select(columns)
    .where('parent_id', '=', parentId)
    .where('deleted_at', deleted ? 'is not' : 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** Groups by id (live or deleted as asked), by name then id; optionally only those of one name (any case). */
export async function listGroupsByIds(db: Db, ids: number[], options: { deleted: boolean; name?: string }): Promise<GroupRow[]> {
  if (ids.length === 0) return [];
  let query = db.selectFrom('dns.groups').select(columns).where('id', 'in', ids).where('deleted_at', options.deleted ? 'is not' : 'is', null);
  if (options.name !== undefined) query = query.where((eb) => eb(eb.fn('lower', ['name']), '=', options.name!.toLowerCase()));
  return query.orderBy('name').orderBy('id').execute();
}

/** Whether the group's new zones are signed by default (false for an unknown group). */
export async function groupSignsNewZones(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('dns.groups').select('dnssec_default').where('id', '=', id).executeTakeFirst();
  return row?.dnssec_default ?? false;
}

/**
 * A group and the groups above it, nearest first, with their usable_ns: whether a zone of the group may use a
 * nameserver of a group above is decided along this chain (services/directory/permission-objects.ts).
 */
export async function findGroupChain(db: Db, groupId: number): Promise<Array<{ id: number; usable_ns: number[] | null }>> {
  const result = await sql<{ id: number; usable_ns: number[] | null }>`
    with recursive up(id, parent_id, usable_ns, depth) as (
      select id, parent_id, usable_ns, 0 from dns.groups where id = ${groupId}
      union all
      select g.id, g.parent_id, g.usable_ns, up.depth + 1 from dns.groups g join up on g.id = up.parent_id where up.depth < 64
    )
    select id, usable_ns from up order by depth`.execute(db);
  return result.rows;
}
