// Queueing publish jobs in the transaction of the change (an outbox): every zone or record change recorded in
// the audit history queues a job for each nameserver that serves the zone, before or after the change (a
// nameserver taken off a zone must drop it). Only nameservers the publisher can reach are queued: powerdns ones
// with settings in publish.yml, and bind/nsd/knot when zone_files is configured.
import type { DnsConfig } from '@keyzone/config';
import type { Clock } from '../deps';
import type { Db } from '../queries/db';
import type { AuditHook } from '../services/audit-hook';

export function publishableTypes(config: DnsConfig['publish']): string[] {
  const types: string[] = ['powerdns'];
  if (config.zoneFiles) types.push('bind', 'nsd', 'knot');
  return types;
}

function zoneIdOf(entry: Parameters<AuditHook['record']>[1]): number | undefined {
  if (entry.objectType === 'zone') return entry.objectId;
  if (entry.objectType === 'zone_record') {
    const zid = (entry.after ?? entry.before)?.zid;
    return typeof zid === 'number' ? zid : undefined;
  }
  return undefined;
}

function nameserverIdsOf(snapshot: Record<string, unknown> | null): number[] {
  const ids = snapshot?.nameservers;
  return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
}

export async function enqueuePublish(db: Db, config: DnsConfig['publish'], zoneId: number, now: Date, extraNameserverIds: number[] = []): Promise<void> {
  const assigned = await db.selectFrom('dns.zone_nameservers').select('nameserver_id').where('zone_id', '=', zoneId).execute();
  const ids = [...new Set([...assigned.map((r) => r.nameserver_id), ...extraNameserverIds])];
  if (ids.length === 0) return;
  const targets = await db
    .selectFrom('dns.nameservers')
    .select(['id', 'name', 'export_type'])
    .where('id', 'in', ids)
    .where('export_type', 'in', publishableTypes(config) as never)
    .execute();
  const reachable = targets.filter((ns) => ns.export_type !== 'powerdns' || config.powerdns[ns.name] !== undefined);
  if (reachable.length === 0) return;
  await db.insertInto('dns.publish_jobs').values(reachable.map((ns) => ({ nameserver_id: ns.id, zone_id: zoneId, created_at: now, next_attempt_at: now }))).execute();
}

/** The audit hook, plus a publish job for every zone change it sees. */
export function publishingAudit(inner: AuditHook, config: DnsConfig['publish'], clock: Clock): AuditHook {
  return {
    async record(trx, entry) {
      await inner.record(trx, entry);
      const zoneId = zoneIdOf(entry);
      if (zoneId === undefined) return;
      const before = entry.objectType === 'zone' ? nameserverIdsOf(entry.before) : [];
      await enqueuePublish(trx, config, zoneId, clock.now(), before);
    },
  };
}
