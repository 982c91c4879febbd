// SQL behind GET /admin/audit: a page of audit_log_entries, newest first, through the
// (created_at DESC, id) index; the total uses the same exact-or-estimate rule as the user list. Cursor mode (Keyzone's
// `limit`/`cursor`, queries/keyset.ts) reads from a position in that index instead of skipping OFFSET rows.
import { sql, type ExpressionBuilder, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { countAllRows } from './admin-users';
import { afterPosition, positionText, type KeysetPosition } from './keyset';
import type { Executor } from './users';

/** The console's audit filters (Keyzone's own query parameters); each absent means "any". */
export interface AuditFilters {
  /** Entries this user did (actor) or that were done to them (traits.user_id). */
  userId?: string;
  actorId?: string;
  action?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function filterExpression(eb: ExpressionBuilder<any, any>, f: AuditFilters): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (f.userId) parts.push(sql<SqlBool>`(payload->>'actor_id' = ${f.userId} OR payload->'traits'->>'user_id' = ${f.userId})`);
  if (f.actorId) parts.push(sql<SqlBool>`payload->>'actor_id' = ${f.actorId}`);
  if (f.action) parts.push(sql<SqlBool>`payload->>'action' = ${f.action}`);
  return eb.and(parts);
}

const hasFilters = (f: AuditFilters) => Boolean(f.userId || f.actorId || f.action);

export interface AuditEntryRow {
  instance_id: string | null;
  id: string;
  payload: unknown;
  created_at: Date | string;
  ip_address: string;
}

export async function findAuditPage(db: Executor, page: number, perPage: number, filters: AuditFilters = {}): Promise<AuditEntryRow[]> {
  return (await db
    .selectFrom('auth.audit_log_entries')
    .select(['instance_id', 'id', 'payload', 'created_at', 'ip_address'])
    .$if(hasFilters(filters), (q) => q.where((eb) => filterExpression(eb, filters)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'asc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute()) as AuditEntryRow[];
}

export async function countAuditEntries(db: Executor, filters: AuditFilters = {}): Promise<number> {
  if (!hasFilters(filters)) return countAllRows(db, 'auth.audit_log_entries');
  const row = await db
    .selectFrom('auth.audit_log_entries')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where((eb) => filterExpression(eb, filters))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface AuditCursorQuery {
  limit: number;
  after?: KeysetPosition;
  filters?: AuditFilters;
}

type CursorRow = AuditEntryRow & { position_at: string };

/** One ordered, limited read of the log after the position: what `match` and the filters other than userId allow. */
function cursorBranch(db: Executor, q: AuditCursorQuery, match?: RawBuilder<SqlBool>) {
  const filters = { ...q.filters, userId: undefined };
  return db
    .selectFrom('auth.audit_log_entries')
    .select(['instance_id', 'id', 'payload', 'created_at', 'ip_address'])
    .select(positionText(sql.ref('created_at')).as('position_at'))
    .$if(match !== undefined, (b) => b.where(match!))
    .$if(q.after !== undefined, (b) => b.where(afterPosition({ createdAt: sql.ref('created_at'), id: sql.ref('id') }, q.after!, 'desc') as RawBuilder<SqlBool>))
    .$if(hasFilters(filters), (b) => b.where((eb) => filterExpression(eb, filters)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'asc')
    .limit(q.limit);
}

/**
 * The statement of a cursor page (newest first, as the page mode), built apart so a test can EXPLAIN it. A user's
 * trail (entries they did OR that name them) is two reads, each from its own index in listing order (the
 * audit_log_trail migration), merged: an OR would make PostgreSQL collect and sort every entry of the user, or walk
 * the whole log when they have few. An entry a user did to themselves is taken from the first read only.
 */
export function auditPageAfterStatement(db: Executor, q: AuditCursorQuery): RawBuilder<CursorRow> {
  const userId = q.filters?.userId;
  if (!userId) return sql<CursorRow>`${cursorBranch(db, q)}`;
  const asActor = cursorBranch(db, q, sql<SqlBool>`payload->>'actor_id' = ${userId}`);
  const asSubject = cursorBranch(db, q, sql<SqlBool>`payload->'traits'->>'user_id' = ${userId} AND (payload->>'actor_id') IS DISTINCT FROM ${userId}`);
  return sql<CursorRow>`SELECT * FROM (${asActor} UNION ALL ${asSubject}) AS trail ORDER BY created_at DESC, id ASC LIMIT ${q.limit}`;
}

/** Up to `limit` entries after the position, each with its own position (for the next cursor). */
export async function findAuditPageAfter(db: Executor, q: AuditCursorQuery): Promise<Array<AuditEntryRow & { position: KeysetPosition }>> {
  const { rows } = await auditPageAfterStatement(db, q).execute(db);
  return rows.map(({ position_at, ...row }) => ({ ...(row as AuditEntryRow), position: { createdAt: position_at, id: row.id } }));
}
