// The audit history: every create, update, delete and restore of a zone, zone record, nameserver, user or
// group, with who, when, and the object's wire shape before and after. `dbAudit` is the AuditHook that
// deps.audit carries, so the user and group services record through the same table; it writes inside the
// caller's transaction, so a change and its history entry commit or roll back together.
import type { Clock } from '../../clock';
import { insertAuditEntry } from '../../queries/audit';
import type { Db } from '../../queries/db';
import type { AuditEntry, AuditHook } from './audit-hook';

export function createDbAudit(clock: Clock): AuditHook {
  return {
    async record(trx: Db, entry: AuditEntry): Promise<void> {
      const zoneId =
        entry.objectType === 'zone'
          ? entry.objectId
          : entry.objectType === 'zone_record'
            ? Number((entry.after ?? entry.before)?.zid) || null
            : null;
      await insertAuditEntry(trx, {
        object_type: entry.objectType,
        object_id: entry.objectId,
        zone_id: zoneId,
        action: entry.action,
        user_id: entry.actor.system ? null : entry.actor.userId,
        actor_name: entry.actor.system ?? null,
        at: clock.now(),
        before: entry.before,
        after: entry.after,
        ip: entry.actor.ip ?? null,
        api_token_id: entry.actor.apiToken?.id ?? null,
        api_token_name: entry.actor.apiToken?.name ?? null,
        tsig_key_id: entry.actor.tsigKey?.id ?? null,
        tsig_key_name: entry.actor.tsigKey?.name ?? null,
      });
    },
  };
}
