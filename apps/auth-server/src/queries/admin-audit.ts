// SQL behind GET /admin/audit: a page of audit_log_entries, newest first, through the
// (created_at DESC, id) index; the total uses the same exact-or-estimate rule as the user list.
import { countAllRows } from './admin-users';
import type { Executor } from './users';

export interface AuditEntryRow {
  instance_id: string | null;
  id: string;
  payload: unknown;
  created_at: Date | string;
  ip_address: string;
}

export async function findAuditPage(db: Executor, page: number, perPage: number): Promise<AuditEntryRow[]> {
  return (await db
    .selectFrom('auth.audit_log_entries')
    .select(['instance_id', 'id', 'payload', 'created_at', 'ip_address'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'asc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute()) as AuditEntryRow[];
}

export function countAuditEntries(db: Executor): Promise<number> {
  return countAllRows(db, 'auth.audit_log_entries');
}
