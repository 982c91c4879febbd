// GET /admin/audit: audit log entries, newest first, in GoTrue's AuditLogEntry JSON shape
// ({instance_id, id, payload, created_at, ip_address}).
import type { Deps } from '../../deps';
import { countAuditEntries, findAuditPage, findAuditPageAfter, type AuditEntryRow, type AuditFilters } from '../../queries/admin-audit';
import { decodeCursor, keysetPage } from './keyset-cursor';

export type { AuditFilters };
import { timestamp } from '../../serialize';

export interface AuditEntryJson {
  instance_id: string | null;
  id: string;
  payload: unknown;
  created_at: string | undefined;
  ip_address: string;
}

function toJson(row: AuditEntryRow): AuditEntryJson {
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as unknown) : row.payload;
  return { instance_id: row.instance_id, id: row.id, payload, created_at: timestamp(row.created_at), ip_address: row.ip_address };
}

export async function listAuditEntries(
  deps: Pick<Deps, 'db'>,
  page: number,
  perPage: number,
  filters: AuditFilters = {},
): Promise<{ entries: AuditEntryJson[]; total: number }> {
  const [rows, total] = await Promise.all([findAuditPage(deps.db, page, perPage, filters), countAuditEntries(deps.db, filters)]);
  return { entries: rows.map(toJson), total };
}

/** Cursor mode (Keyzone's, the users listing's wire): no total, constant cost at any depth. */
export interface AuditCursorPage {
  entries: AuditEntryJson[];
  pagination: { next_cursor?: string; has_more: boolean };
}

export async function listAuditEntriesAfterCursor(
  deps: Pick<Deps, 'db'>,
  input: { limit: number; cursor?: string; filters?: AuditFilters },
): Promise<AuditCursorPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await findAuditPageAfter(deps.db, { limit: input.limit + 1, after, filters: input.filters });
  const { page, nextCursor } = keysetPage(rows, input.limit);
  return {
    entries: page.map(({ position: _position, ...row }) => toJson(row)),
    pagination: nextCursor ? { next_cursor: nextCursor, has_more: true } : { has_more: false },
  };
}
