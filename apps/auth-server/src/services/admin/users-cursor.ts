// GET /admin/users in cursor mode (GoTrue's keyset pagination: `limit` and an opaque `cursor`
// instead of page/per_page): constant cost at any depth, no total. The cursor is
// base64url(JSON {created_at, id}) of the last row of the previous page, as in GoTrue.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { UserListSort } from './users-list';
import { findUserPageAfter, type KeysetPosition, type UserListFilters } from '../../queries/admin-users-keyset';
import { findIdentitiesByUserIds } from '../../queries/admin-user-writes';
import { serializeUser, type UserJson } from '../../serialize';
import { isUuid } from '../../uuid';

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ created_at: position.createdAt, id: position.id })).toString('base64url');
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const badCursor = () => new ApiError(400, ErrorCode.validation_failed, 'Bad Pagination Parameters: invalid cursor');

export function decodeCursor(raw: string): KeysetPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const { created_at: createdAt, id } = (parsed ?? {}) as { created_at?: unknown; id?: unknown };
  if (typeof id !== 'string' || !isUuid(id) || typeof createdAt !== 'string' || !RFC3339.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    throw badCursor();
  }
  return { createdAt, id };
}

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
  // One row more than asked tells whether another page exists without counting.
  const rows = await findUserPageAfter(deps.db, {
    limit: input.limit + 1, after, filter: input.filter, sort: input.sort, filters: input.filters, now: deps.clock.now(),
  });
  const page = rows.slice(0, input.limit);
  const hasMore = rows.length > input.limit;
  const identities = await findIdentitiesByUserIds(deps.db, page.map((r) => r.id));
  const last = page[page.length - 1];
  return {
    users: page.map(({ position: _position, ...row }) => serializeUser(row, identities.get(row.id) ?? [])),
    aud: deps.config.jwt.aud,
    pagination: hasMore && last ? { next_cursor: encodeCursor(last.position), has_more: true } : { has_more: false },
  };
}
