// GET /admin/users in page mode (page/per_page, GoTrue's default): one page of users and a total that the page
// itself corrects (provenTotal). Cursor mode is users-cursor.ts; single users and writes are users.ts.
import type { Deps } from '../../deps';
import { findIdentitiesByUserIds } from '../../queries/admin-user-writes';
import { countUsers, findUserPage, type SortDirection, type UserPageQuery } from '../../queries/admin-users';
import { serializeUser, type UserJson } from '../../serialize';

/** Newest first ('desc', GoTrue's default) or oldest first, by created_at. */
export type UserListSort = SortDirection;

/**
 * The count corrected by what the page proves: a short, non-empty page (or a short first page) is
 * the end of the list, so the total is exact; an empty page further on means at most the rows
 * before it; a full page means at least the rows seen so far. This makes an estimated total exact
 * on the last page and for every filter with one page of hits.
 */
export function provenTotal(query: Pick<UserPageQuery, 'page' | 'perPage'>, rowsOnPage: number, counted: number): number {
  const before = (query.page - 1) * query.perPage;
  if (rowsOnPage === 0 && query.page > 1) return Math.min(counted, before);
  if (rowsOnPage < query.perPage) return before + rowsOnPage;
  return Math.max(counted, before + rowsOnPage);
}

export async function listUsers(
  deps: Deps,
  query: UserPageQuery,
): Promise<{ users: UserJson[]; total: number; aud: string }> {
  // Two independent statements on two pool connections: the latency is the slower one, not the sum.
  const [rows, counted] = await Promise.all([findUserPage(deps.db, query), countUsers(deps.db, query.filter)]);
  const identities = await findIdentitiesByUserIds(deps.db, rows.map((r) => r.id));
  return { users: rows.map((r) => serializeUser(r, identities.get(r.id) ?? [])), total: provenTotal(query, rows.length, counted), aud: deps.config.jwt.aud };
}
