// Keyset paging over a (created_at, id) listing, shared by the admin listings that page by cursor (users, audit
// log): the condition "strictly after this position" and the position's exact text, both written once so every
// listing reads its btree the same way. Page 20,000 then costs what page 1 costs; OFFSET walks every earlier row.
import { sql, type RawBuilder } from 'kysely';

export interface KeysetPosition {
  /** created_at at full (microsecond) precision, RFC 3339 UTC, as produced by `positionText`. */
  createdAt: string;
  id: string;
}

/** created_at's microseconds survive a JS Date only as text: the listing selects this beside its columns. */
export function positionText(createdAt: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * Rows strictly after `after` in the order (created_at DESC, id ASC) for 'desc', or its reverse for 'asc': the
 * order of the (created_at DESC, id) indexes. The first, redundant conjunct gives the planner an index bound.
 */
export function afterPosition(
  columns: { createdAt: RawBuilder<unknown>; id: RawBuilder<unknown> },
  after: KeysetPosition,
  sort: 'asc' | 'desc',
): RawBuilder<unknown> {
  const { createdAt: c, id } = columns;
  const at = sql`${after.createdAt}::timestamptz`;
  return sort === 'desc'
    ? sql`${c} <= ${at} AND (${c} < ${at} OR (${c} = ${at} AND ${id} > ${after.id}::uuid))`
    : sql`${c} >= ${at} AND (${c} > ${at} OR (${c} = ${at} AND ${id} < ${after.id}::uuid))`;
}
