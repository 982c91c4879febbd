import { sql } from 'kysely';
import type { Db } from './db';

// NicTool's permission objects (dns.permissions): a group's (user_id null) or a user's own, with NicTool's flags.

export const PERMISSION_FLAGS = [
  'group_create', 'group_write', 'group_delete', 'user_create', 'user_write', 'user_delete',
  'nameserver_create', 'nameserver_write', 'nameserver_delete',
  'zone_create', 'zone_write', 'zone_delete', 'zone_delegate',
  'zonerecord_create', 'zonerecord_write', 'zonerecord_delete', 'zonerecord_delegate', 'self_write',
] as const;
export type PermissionFlag = (typeof PERMISSION_FLAGS)[number];
export type PermissionFlags = Record<PermissionFlag, boolean>;

export interface PermissionRow extends PermissionFlags {
  id: number;
  /** the group's object: the group; a user's object: null */
  group_id: number | null;
  user_id: number | null;
  /** the group the object is about: the group, or the user's group */
  owner_group_id: number;
  name: string;
  inherit: boolean;
  /** a group's object: the group's usable_ns (null: unrestricted); a user's: its own list */
  usable_ns: number[] | null;
  /** a user's object: whether that user takes the group's object instead (users.inherit_group_permissions) */
  user_inherits: boolean | null;
  deleted_at: Date | null;
}

const flagColumns = PERMISSION_FLAGS.map((f) => sql.ref(`p.${f}`));

/** The select list of a permission row with what it is about (its group, the group's usable_ns, the user's choice). */
const selectRows = sql`
  select p.id, p.group_id, p.user_id, coalesce(p.group_id, u.group_id) as owner_group_id, p.name, p.inherit,
    ${sql.join(flagColumns)},
    case when p.group_id is not null then g.usable_ns else p.usable_ns end as usable_ns,
    u.inherit_group_permissions as user_inherits, p.deleted_at
  from dns.permissions p
  left join dns.users u on u.id = p.user_id
  left join dns.groups g on g.id = p.group_id`;

export async function findPermissionById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<PermissionRow | undefined> {
  const result = await sql<PermissionRow>`${selectRows} where p.id = ${id}${options.lock ? sql` for update of p` : sql``}`.execute(db);
  return result.rows[0];
}

/** The live objects of a user and of the user's group (at most one each), for the effective permission. */
export async function findLivePermissionsOf(db: Db, userId: number, groupId: number): Promise<PermissionRow[]> {
  const result = await sql<PermissionRow>`${selectRows}
    where p.deleted_at is null and (p.user_id = ${userId} or (p.group_id = ${groupId} and p.user_id is null))`.execute(db);
  return result.rows;
}

/** The live objects of these groups and of their users, by id. */
export async function findLivePermissionsInGroups(db: Db, groupIds: number[], deleted: boolean): Promise<PermissionRow[]> {
  if (groupIds.length === 0) return [];
  const result = await sql<PermissionRow>`${selectRows}
    where coalesce(p.group_id, u.group_id) in (${sql.join(groupIds)}) and p.deleted_at is ${deleted ? sql`not null` : sql`null`}
    order by p.id`.execute(db);
  return result.rows;
}

export interface PermissionValues extends PermissionFlags {
  group_id: number | null;
  user_id: number | null;
  name: string;
  inherit: boolean;
  usable_ns: number[];
}

/** Inserts an object; the partial unique indexes refuse a second live one for the same group or user. */
export async function insertPermission(db: Db, values: PermissionValues, now: Date): Promise<number> {
  const row = await db
    .insertInto('dns.permissions')
    .values({ ...values, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Changes an object's flags, and its name, inherit or (a user's) usable list when given. */
export async function updatePermissionRow(
  db: Db, id: number, changes: PermissionFlags & { name?: string; inherit?: boolean; usable_ns?: number[] }, now: Date,
): Promise<void> {
  const { name, inherit, usable_ns, ...flags } = changes;
  await db
    .updateTable('dns.permissions')
    .set({ ...flags, ...(name !== undefined ? { name } : {}), ...(inherit !== undefined ? { inherit } : {}), ...(usable_ns !== undefined ? { usable_ns } : {}), updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function markPermissionDeleted(db: Db, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('dns.permissions')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
