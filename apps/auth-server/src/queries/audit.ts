// SQL for auth.audit_log_entries.
import { randomUUID } from 'node:crypto';
import type { Executor } from './users';
import { NIL_UUID } from './users';

export async function insertAuditEntry(
  db: Executor,
  entry: { payload: Record<string, unknown>; ip: string; at: Date },
): Promise<void> {
  await db
    .insertInto('auth.audit_log_entries')
    .values({
      instance_id: NIL_UUID,
      id: randomUUID(),
      payload: JSON.stringify(entry.payload),
      created_at: entry.at,
      ip_address: entry.ip,
    } as never)
    .execute();
}
