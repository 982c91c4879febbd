import { sql, type RawBuilder } from 'kysely';
import type { Db } from './db';

/** Ids of `rootId` and every group below it (live or not: callers filter objects, not groups). */
export async function findSubtreeGroupIds(db: Db, rootId: number): Promise<number[]> {
  const result = await sql<{ id: number }>`${subtreeGroupIds(rootId)}`.execute(db);
  return result.rows.map((r) => r.id);
}

/** findSubtreeGroupIds as a subquery, for `group_id in (...)` inside a larger query (one round trip fewer). */
export function subtreeGroupIds(rootId: number): RawBuilder<number> {
  return sql<number>`(
    with recursive down(id, depth) as (
      select id, 0 from dns.groups where id = ${rootId}
      union all
      select g.id, down.depth + 1 from dns.groups g join down on g.parent_id = down.id where down.depth < 64
    )
    select id from down)`;
}

/** Ids of the groups above `groupId` (its parent, grandparent, …), nearest first. */
export async function findAncestorGroupIds(db: Db, groupId: number): Promise<number[]> {
  const result = await sql<{ id: number }>`
    with recursive up(id, parent_id, depth) as (
      select id, parent_id, 0 from dns.groups where id = ${groupId}
      union all
      select g.id, g.parent_id, up.depth + 1 from dns.groups g join up on g.id = up.parent_id where up.depth < 64
    )
    select id from up where depth > 0 order by depth`.execute(db);
  return result.rows.map((r) => r.id);
}

/**
 * A group row under a shared lock: objects created in it hold this until commit, so a concurrent group
 * delete (which locks the row for update, then counts what the group holds) sees them.
 */
export async function findGroupForShare(db: Db, id: number): Promise<{ id: number; deleted_at: Date | null } | undefined> {
  return db.selectFrom('dns.groups').select(['id', 'deleted_at']).where('id', '=', id).forShare().executeTakeFirst();
}
