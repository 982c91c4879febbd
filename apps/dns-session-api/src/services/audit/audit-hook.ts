import type { Db } from '../../queries/db';
import type { Caller } from '../access/caller';

// Services that change users or groups call deps.audit.record(trx, ...) inside their transaction, after the
// write, with the row before and after. The audit history itself (table, queries, GET .../history) belongs to
// the zones work; it plugs in by providing an AuditHook in deps.ts. Until then nothing is recorded.

export type AuditAction = 'create' | 'update' | 'delete' | 'restore';

export interface AuditEntry {
  actor: Caller;
  objectType: 'user' | 'group' | 'zone' | 'zone_record' | 'nameserver' | 'permission';
  objectId: number;
  action: AuditAction;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface AuditHook {
  /** Runs in the caller's transaction: if it throws, the change is rolled back too. */
  record(trx: Db, entry: AuditEntry): Promise<void>;
}

export const noAudit: AuditHook = { record: async () => {} };
