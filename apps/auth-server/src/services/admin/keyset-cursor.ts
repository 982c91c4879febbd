// The opaque cursor of the admin listings' keyset paging (GoTrue's cursor mode of /admin/users, reused by
// Keyzone's /admin/audit): base64url(JSON {created_at, id}) of the last row of the previous page. Anything else is a
// 400 in GoTrue's shape, never a 500 from a bad timestamp reaching SQL.
import { ApiError, ErrorCode } from '../../errors';
import type { KeysetPosition } from '../../queries/keyset';
import { isUuid } from '../../uuid';

export type { KeysetPosition };

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ created_at: position.createdAt, id: position.id })).toString('base64url');
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Date.parse rolls 30 February over to March and takes year 0 or a +23:59 offset, all of which PostgreSQL's
 * timestamptz cast refuses (a 500): only a real calendar instant, year 1 on, offset within ±15:59, is a position.
 */
function isSqlTimestamp(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  at.setUTCFullYear(year); // Date.UTC reads years 0-99 as 1900-1999
  return year >= 1 && hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 15 && offsetMinutes <= 59
    && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

const badCursor = () => new ApiError(400, ErrorCode.validation_failed, 'Bad Pagination Parameters: invalid cursor');

export function decodeCursor(raw: string): KeysetPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const { created_at: createdAt, id } = (parsed ?? {}) as { created_at?: unknown; id?: unknown };
  if (typeof id !== 'string' || !isUuid(id) || typeof createdAt !== 'string' || !isSqlTimestamp(createdAt)) {
    throw badCursor();
  }
  return { createdAt, id };
}

/**
 * One row more than asked tells whether another page exists without counting: the page, and the cursor of its last
 * row when more follow.
 */
export function keysetPage<Row extends { position: KeysetPosition }>(rows: Row[], limit: number): { page: Row[]; nextCursor: string | undefined } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(last.position) : undefined };
}
