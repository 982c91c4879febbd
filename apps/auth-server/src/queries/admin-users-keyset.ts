// Keyset ("cursor") paging of auth.users for GET /admin/users?limit=&cursor= (GoTrue's cursor
// mode): the page after a (created_at, id) position, read straight from the (created_at DESC, id)
// btree, so page 20,000 costs what page 1 costs. OFFSET paging has to walk every earlier entry.
import { sql, type RawBuilder } from 'kysely';
import { userColumns, type UserRow } from './columns';
import { containsPattern, type SortDirection } from './admin-users';
import type { Executor } from './users';

export interface KeysetPosition {
  /** created_at at full (microsecond) precision, RFC 3339 UTC, as produced by this query. */
  createdAt: string;
  id: string;
}

export interface KeysetQuery {
  limit: number;
  after?: KeysetPosition;
  filter?: string;
  sort: SortDirection;
}

const users = sql.table('auth.users');
const selectedColumns = sql.join(userColumns.map((c) => sql.ref(`u.${c}`)));

/** Rows strictly after `after` in the listing order (created_at DESC, id ASC, or its reverse). */
function afterCondition(after: KeysetPosition, sort: SortDirection): RawBuilder<unknown> {
  const at = sql`${after.createdAt}::timestamptz`;
  // The first, redundant conjunct gives the planner an index bound on created_at.
  return sort === 'desc'
    ? sql`u.created_at <= ${at} AND (u.created_at < ${at} OR (u.created_at = ${at} AND u.id > ${after.id}::uuid))`
    : sql`u.created_at >= ${at} AND (u.created_at > ${at} OR (u.created_at = ${at} AND u.id < ${after.id}::uuid))`;
}

/** Up to `limit` rows after the position, each with its own position (for the next cursor). */
export async function findUserPageAfter(db: Executor, q: KeysetQuery): Promise<Array<UserRow & { position: KeysetPosition }>> {
  const conditions: RawBuilder<unknown>[] = [];
  if (q.after) conditions.push(afterCondition(q.after, q.sort));
  if (q.filter) {
    const pattern = containsPattern(q.filter);
    conditions.push(sql`(lower(u.email) LIKE ${pattern} OR lower(u.raw_user_meta_data->>'full_name') LIKE ${pattern})`);
  }
  const where = conditions.length > 0 ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql``;
  const order = q.sort === 'asc' ? sql`u.created_at ASC, u.id DESC` : sql`u.created_at DESC, u.id ASC`;
  const { rows } = await sql<UserRow & { position_at: string }>`
    SELECT ${selectedColumns},
           to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at
    FROM ${users} AS u ${where} ORDER BY ${order} LIMIT ${q.limit}`.execute(db);
  return rows.map(({ position_at, ...row }) => ({ ...(row as UserRow), position: { createdAt: position_at, id: row.id } }));
}
