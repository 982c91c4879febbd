// GET /admin/users in cursor mode (GoTrue's keyset pagination: `limit` and an opaque `cursor`
// instead of page/per_page): constant cost at any depth, no total. The cursor is
// base64url(JSON {created_at, id}) of the last row of the previous page, as in GoTrue (keyset-cursor.ts).
import type { Deps } from '../../deps';
import type { UserListSort } from './users-list';
import { findUserPageAfter, type UserListFilters } from '../../queries/admin-users-keyset';
import { findIdentitiesByUserIds } from '../../queries/admin-user-writes';
import { serializeUser, type UserJson } from '../../serialize';
import { decodeCursor, keysetPage } from './keyset-cursor';

export type { UserListFilters };

export interface CursorPage {
  users: UserJson[];
  aud: string;
  pagination: { next_cursor?: string; has_more: boolean };
}

export async function listUsersAfterCursor(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  input: { limit: number; cursor?: string; filter?: string; sort: UserListSort; filters?: UserListFilters },
): Promise<CursorPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await findUserPageAfter(deps.db, {
    limit: input.limit + 1, after, filter: input.filter, sort: input.sort, filters: input.filters, now: deps.clock.now(),
  });
  const { page, nextCursor } = keysetPage(rows, input.limit);
  const identities = await findIdentitiesByUserIds(deps.db, page.map((r) => r.id));
  return {
    users: page.map(({ position: _position, ...row }) => serializeUser(row, identities.get(row.id) ?? [])),
    aud: deps.config.jwt.aud,
    pagination: nextCursor ? { next_cursor: nextCursor, has_more: true } : { has_more: false },
  };
}
