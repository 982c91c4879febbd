// SQL behind GET /admin/users: one page of users and the total, built to stay fast at a million
// rows on PostgreSQL (numbers and plans: bench/README-admin.md).
//
// - Order: created_at, served by the btree on (created_at DESC, id); id breaks ties so pages are
//   stable when many users share a timestamp.
// - Unfiltered pages use a "deferred join": the OFFSET walk reads only the (created_at, id) index
//   (an index-only scan once the visibility map is set), then the page's 50 rows are fetched by id.
//   A deep page therefore skips index tuples, not heap rows.
// - The filter matches lower(email) or lower(full_name) with LIKE '%x%'. Both expressions carry a
//   pg_trgm GIN index, so a filter of three or more characters becomes a BitmapOr of two GIN scans
//   instead of a sequential scan. Input wildcards (%, _, \) are escaped: a filter is a substring.
// - Totals: see countUsers.
import { sql, type RawBuilder } from 'kysely';
import { userColumns, type UserRow } from './columns';
import type { Executor } from './users';

export type SortDirection = 'asc' | 'desc';

export interface UserPageQuery {
  /** 1-based. */
  page: number;
  perPage: number;
  /** Substring of the email or of user_metadata.full_name, any case; '' or undefined = all. */
  filter?: string;
  sort: SortDirection;
}

/** Up to this many rows an exact count(*) is cheap enough (a few ms) to run on every request. */
export const EXACT_COUNT_LIMIT = 100_000;
/** A filter's matches are counted exactly up to this many; beyond it the planner's estimate is used. */
export const FILTER_COUNT_CAP = 1_000;

const users = sql.table('auth.users');

/** LIKE pattern for "contains `text`" with LIKE's own wildcards escaped (default escape is \). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filter predicate; the two expressions are exactly the ones the trigram indexes cover. */
function filterCondition(filter: string): RawBuilder<unknown> {
  const pattern = containsPattern(filter);
  return sql`(lower(email) LIKE ${pattern} OR lower(raw_user_meta_data->>'full_name') LIKE ${pattern})`;
}

const selectedColumns = sql.join(userColumns.map((c) => sql.ref(`u.${c}`)));

function orderBy(sort: SortDirection, alias?: string): RawBuilder<unknown> {
  const created = sql.ref(alias ? `${alias}.created_at` : 'created_at');
  const id = sql.ref(alias ? `${alias}.id` : 'id');
  // The btree is (created_at DESC, id ASC): read forwards for newest first, backwards for oldest
  // first, so the id tie-break runs against created_at in both directions.
  return sort === 'asc' ? sql`${created} ASC, ${id} DESC` : sql`${created} DESC, ${id} ASC`;
}

/** The statement behind findUserPage (exported so a test can EXPLAIN it). */
export function userPageStatement(q: UserPageQuery): RawBuilder<UserRow> {
  const offset = (q.page - 1) * q.perPage;
  return q.filter
    ? sql<UserRow>`SELECT ${selectedColumns} FROM ${users} AS u
        WHERE ${filterCondition(q.filter)}
        ORDER BY ${orderBy(q.sort, 'u')} LIMIT ${q.perPage} OFFSET ${offset}`
    : sql<UserRow>`SELECT ${selectedColumns}
        FROM (SELECT id, created_at FROM ${users} ORDER BY ${orderBy(q.sort)} LIMIT ${q.perPage} OFFSET ${offset}) AS p
        JOIN ${users} AS u ON u.id = p.id
        ORDER BY ${orderBy(q.sort, 'p')}`;
}

/** One page of users in (created_at, id) order. */
export async function findUserPage(db: Executor, q: UserPageQuery): Promise<UserRow[]> {
  const { rows } = await userPageStatement(q).execute(db);
  return rows;
}

/**
 * The planner's row estimate for `SELECT 1 FROM <table> [WHERE ...]`: it scales pg_class
 * statistics by the table's current size, costs no scan, and works unchanged on PGlite and with a
 * DB_NAMESPACE (the table is named through sql.table).
 */
async function plannerEstimate(db: Executor, table: string, where?: RawBuilder<unknown>): Promise<number> {
  const condition = where ? sql`WHERE ${where}` : sql``;
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${sql.table(table)} ${condition}`.execute(db);
  const plan = rows[0]?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: { 'Plan Rows': number } }>;
  return Math.round(parsed[0]?.Plan['Plan Rows'] ?? 0);
}

/** All rows of a table: exact up to EXACT_COUNT_LIMIT, the planner's estimate above (see countUsers). */
export async function countAllRows(db: Executor, table: 'auth.users' | 'auth.audit_log_entries'): Promise<number> {
  const estimate = await plannerEstimate(db, table);
  if (estimate > EXACT_COUNT_LIMIT) return estimate;
  const { rows } = await sql<{ n: string | number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * The X-Total-Count for a listing, without scanning a large table a second time:
 * - no filter: countAllRows (exact up to EXACT_COUNT_LIMIT rows, the planner's estimate above: a
 *   million-row count(*) costs 40-80 ms on every request, the whole latency budget; the estimate is
 *   exact right after ANALYZE and drifts by the rows written since autovacuum last ran).
 * - filter: the planner's estimate first (no scan); when it promises more than
 *   FILTER_ESTIMATE_TRUSTED matches an exact count cannot finish in time anyway, so the estimate
 *   is the total. Otherwise an exact count of at most FILTER_COUNT_CAP + 1 matches (a search
 *   matching more than 1,000 users, 20 pages, gets refined rather than paged to its end), given
 *   COUNT_TIME_BUDGET_MS; when it hits the cap or runs out of time, the estimate again.
 * The service corrects the total with what the page itself proves (see listUsers).
 */
export async function countUsers(db: Executor, filter?: string): Promise<number> {
  if (!filter) return countAllRows(db, 'auth.users');
  const estimate = await plannerEstimate(db, 'auth.users', filterCondition(filter));
  if (estimate > FILTER_ESTIMATE_TRUSTED) return estimate;
  const capped = await cappedFilterCount(db, filter);
  if (capped !== undefined && capped <= FILTER_COUNT_CAP) return capped;
  return Math.max(capped ?? 0, estimate);
}

/** Above this many estimated matches the filter's total is the estimate (trigram estimates err by ~3x). */
export const FILTER_ESTIMATE_TRUSTED = 20 * FILTER_COUNT_CAP;

/** How long an exact filtered count may take before the estimate is used instead. */
export const COUNT_TIME_BUDGET_MS = 25;

/** Trigram indexes only help patterns with at least one whole trigram. */
const TRIGRAM_MIN_LENGTH = 3;

/**
 * count(*) of at most FILTER_COUNT_CAP + 1 matches, or undefined when it needs more than
 * COUNT_TIME_BUDGET_MS. For a broad filter the planner, expecting many matches, picks a scan that
 * stops after the cap; but evaluating the two LIKEs costs ~3 µs a row and reaching 1,001 matches of
 * a 3% filter reads 30,000 rows (~100 ms), while the GIN bitmap yields only candidate rows (~25 ms
 * for 30,000). So plain and index scans are switched off for this statement (SET LOCAL lasts until
 * its transaction ends). A filter whose trigrams are in most rows (a common domain such as
 * "gmail.com") is slow either way: that is what the time budget is for. Patterns without a whole
 * trigram cannot use the index and keep the default plan. (PGlite ignores statement_timeout.)
 */
async function cappedFilterCount(db: Executor, filter: string): Promise<number | undefined> {
  const count = async (ex: Executor) => {
    const { rows } = await sql<{ n: string | number }>`SELECT count(*) AS n FROM
        (SELECT 1 FROM ${users} WHERE ${filterCondition(filter)} LIMIT ${FILTER_COUNT_CAP + 1}) AS capped`.execute(ex);
    return Number(rows[0]?.n ?? 0);
  };
  if (db.isTransaction) return count(db);
  try {
    return await db.transaction().execute(async (tx) => {
      // set_config(..., true) is SET LOCAL; one statement instead of three round trips.
      const bitmapOnly = filter.length >= TRIGRAM_MIN_LENGTH ? 'off' : 'on';
      await sql`SELECT set_config('statement_timeout', ${String(COUNT_TIME_BUDGET_MS)}, true),
                       set_config('enable_seqscan', ${bitmapOnly}, true),
                       set_config('enable_indexscan', ${bitmapOnly}, true)`.execute(tx);
      return count(tx);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '57014') return undefined; // query_canceled: over budget
    throw err;
  }
}
