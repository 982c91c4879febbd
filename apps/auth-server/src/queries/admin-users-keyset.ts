// Keyset ("cursor") paging of auth.users for GET /admin/users?limit=&cursor= (GoTrue's cursor
// mode): the page after a (created_at, id) position (queries/keyset.ts), read straight from the
// (created_at DESC, id) btree.
import { sql, type RawBuilder } from 'kysely';
import { userColumns, type UserRow } from './columns';
import { containsPattern, type SortDirection } from './admin-users';
import { afterPosition, positionText, type KeysetPosition } from './keyset';
import type { Executor } from './users';

export type { KeysetPosition };

/** The console's filters (issue 43); each one absent means "either". */
export interface UserListFilters {
  confirmed?: boolean;
  banned?: boolean;
  anonymous?: boolean;
  /** Has an identity of this provider (email, phone, google, sso:..., custom:...). */
  provider?: string;
  /** Has a verified MFA factor. */
  hasMfa?: boolean;
}

export interface KeysetQuery {
  limit: number;
  after?: KeysetPosition;
  filter?: string;
  sort: SortDirection;
  filters?: UserListFilters;
  /** The time `banned` is judged at (the server's clock). */
  now?: Date;
}

const users = sql.table('auth.users');
const identities = sql.table('auth.identities');
const factors = sql.table('auth.mfa_factors');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The search box: a substring of the e-mail or full name (the trigram indexes), an exact user id, or an exact
 * phone number as stored (digits, with or without the leading +): each of these is an index lookup.
 */
function searchCondition(filter: string): RawBuilder<unknown> {
  const pattern = containsPattern(filter);
  const alternatives = [sql`lower(u.email) LIKE ${pattern}`, sql`lower(u.raw_user_meta_data->>'full_name') LIKE ${pattern}`];
  if (UUID.test(filter)) alternatives.push(sql`u.id = ${filter.toLowerCase()}::uuid`);
  const digits = filter.replace(/^\+/, '');
  if (/^\d{4,20}$/.test(digits)) alternatives.push(sql`u.phone = ${digits}`);
  return sql`(${sql.join(alternatives, sql` OR `)})`;
}

function filterConditions(f: UserListFilters, now: Date): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [];
  const not = (on: boolean, condition: RawBuilder<unknown>) => (on ? condition : sql`NOT ${condition}`);
  if (f.confirmed !== undefined) out.push(not(f.confirmed, sql`(u.email_confirmed_at IS NOT NULL OR u.phone_confirmed_at IS NOT NULL)`));
  // `banned_until IS NOT NULL` said out loud lets the planner use the partial index of banned users.
  if (f.banned === true) out.push(sql`u.banned_until IS NOT NULL AND u.banned_until > ${now.toISOString()}::timestamptz`);
  if (f.banned === false) out.push(sql`(u.banned_until IS NULL OR u.banned_until <= ${now.toISOString()}::timestamptz)`);
  if (f.anonymous !== undefined) out.push(not(f.anonymous, sql`u.is_anonymous`));
  if (f.provider !== undefined) out.push(sql`EXISTS (SELECT 1 FROM ${identities} AS i WHERE i.user_id = u.id AND i.provider = ${f.provider})`);
  if (f.hasMfa !== undefined) {
    out.push(not(f.hasMfa, sql`EXISTS (SELECT 1 FROM ${factors} AS f WHERE f.user_id = u.id AND f.status = 'verified')`));
  }
  return out;
}
const selectedColumns = sql.join(userColumns.map((c) => sql.ref(`u.${c}`)));

/** Up to `limit` rows after the position, each with its own position (for the next cursor). */
export async function findUserPageAfter(db: Executor, q: KeysetQuery): Promise<Array<UserRow & { position: KeysetPosition }>> {
  const conditions: RawBuilder<unknown>[] = [];
  if (q.after) conditions.push(afterPosition({ createdAt: sql.ref('u.created_at'), id: sql.ref('u.id') }, q.after, q.sort));
  if (q.filter) conditions.push(searchCondition(q.filter));
  if (q.filters) conditions.push(...filterConditions(q.filters, q.now ?? new Date()));
  const where = conditions.length > 0 ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql``;
  const order = q.sort === 'asc' ? sql`u.created_at ASC, u.id DESC` : sql`u.created_at DESC, u.id ASC`;
  const { rows } = await sql<UserRow & { position_at: string }>`
    SELECT ${selectedColumns},
           ${positionText(sql.ref('u.created_at'))} AS position_at
    FROM ${users} AS u ${where} ORDER BY ${order} LIMIT ${q.limit}`.execute(db);
  return rows.map(({ position_at, ...row }) => ({ ...(row as UserRow), position: { createdAt: position_at, id: row.id } }));
}
