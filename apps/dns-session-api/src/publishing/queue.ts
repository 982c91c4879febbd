// Queueing publish jobs in the transaction of the change (an outbox): every zone or record change recorded in
// the audit history queues a job for each nameserver that serves the zone, before or after the change (a
// nameserver taken off a zone must drop it). Only nameservers the publisher can reach are queued: powerdns ones
// with settings in publish.yml, and bind/nsd/knot when zone_files is configured. A record change's job names the
// RRsets it touched ("<owner> <type>", before and after), so PowerDNS is sent only those; a change of the zone
// itself (nameservers, SOA fields, signing, creation, import) names none: the whole zone goes out.
import type { DnsConfig } from '@keyzone/config';
import type { Clock } from '../clock';
import type { Db } from '../queries/db';
import type { AuditHook } from '../services/audit/audit-hook';
import { rrsetKey } from './rrset-keys';

export function publishableTypes(config: DnsConfig['publish']): string[] {
  const types: string[] = ['powerdns'];
  if (config.zoneFiles) types.push('bind', 'nsd', 'knot');
  return types;
}

/**
 * Why a nameserver gets no publish jobs, or null when it does: publishing off, a PowerDNS nameserver without
 * settings in publish.yml, or a zone-file nameserver without zone_files.
 */
export function unpublishedReason(config: DnsConfig['publish'], nameserver: { name: string; export_type: string }): string | null {
  if (!config.enabled) return 'publishing is off (publish.yml enabled: false)';
  if (nameserver.export_type === 'powerdns') {
    return config.powerdns[nameserver.name] === undefined ? `publish.yml has no powerdns target for ${nameserver.name}` : null;
  }
  if (!publishableTypes(config).includes(nameserver.export_type)) return `nameservers of type ${nameserver.export_type} are not published`;
  return config.zoneFiles ? null : `publish.yml has no zone_files settings for ${nameserver.export_type} nameservers`;
}

function zoneIdOf(entry: Parameters<AuditHook['record']>[1]): number | undefined {
  if (entry.objectType === 'zone') return entry.objectId;
  if (entry.objectType === 'zone_record') {
    const zid = (entry.after ?? entry.before)?.zid;
    return typeof zid === 'number' ? zid : undefined;
  }
  return undefined;
}

/** The RRsets a record change touched (its owner and type before and after); null for a zone change. */
export function rrsetKeysOf(entry: Parameters<AuditHook['record']>[1]): string[] | null {
  if (entry.objectType !== 'zone_record') return null;
  const keys = new Set<string>();
  for (const row of [entry.before, entry.after]) {
    if (row && typeof row.owner === 'string' && typeof row.type === 'string') keys.add(rrsetKey(row.owner, row.type));
  }
  return keys.size > 0 ? [...keys] : null;
}

function nameserverIdsOf(snapshot: Record<string, unknown> | null): number[] {
  const ids = snapshot?.nameservers;
  return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
}

/**
 * Queues the zone for every publishable nameserver serving it (and `extraNameserverIds`, which just lost it).
 * `rrsets`: the RRset keys the change touched, or null for the whole zone.
 */
export async function enqueuePublish(
  db: Db, config: DnsConfig['publish'], zoneId: number, now: Date, extraNameserverIds: number[] = [], rrsets: string[] | null = null,
): Promise<void> {
  const assigned = await db.selectFrom('dns.zone_nameservers').select('nameserver_id').where('zone_id', '=', zoneId).execute();
  const ids = [...new Set([...assigned.map((r) => r.nameserver_id), ...extraNameserverIds])];
  if (ids.length === 0) return;
  const targets = await db
    .selectFrom('dns.nameservers')
    .select(['id', 'name', 'export_type'])
    .where('id', 'in', ids)
    .where('export_type', 'in', publishableTypes(config) as never)
    .execute();
  const reachable = targets.filter((ns) => unpublishedReason(config, ns) === null);
  if (reachable.length === 0) return;
  await db.insertInto('dns.publish_jobs').values(reachable.map((ns) => ({ nameserver_id: ns.id, zone_id: zoneId, created_at: now, next_attempt_at: now, rrsets }))).execute();
}

/** The audit hook, plus a publish job for every zone change it sees. */
export function publishingAudit(inner: AuditHook, config: DnsConfig['publish'], clock: Clock): AuditHook {
  return {
    async record(trx, entry) {
      await inner.record(trx, entry);
      const zoneId = zoneIdOf(entry);
      if (zoneId === undefined) return;
      const before = entry.objectType === 'zone' ? nameserverIdsOf(entry.before) : [];
      await enqueuePublish(trx, config, zoneId, clock.now(), before, rrsetKeysOf(entry));
    },
  };
}

export interface PublishAllResult {
  /** Jobs queued, one per live zone and publishable nameserver serving it. */
  queued: number;
  /** Nameservers left out, with why (no target in publish.yml, …). */
  skipped: Array<{ id: number; name: string; reason: string }>;
}

/**
 * Queues every live zone for every nameserver that serves it (or only `nameserverId`): for publishing turned on
 * after zones existed, or after import-nictool. The service's publisher applies the jobs at its next poll.
 */
export async function enqueueAllZones(db: Db, config: DnsConfig['publish'], now: Date, nameserverId?: number): Promise<PublishAllResult> {
  let query = db.selectFrom('dns.nameservers').select(['id', 'name', 'export_type']).where('deleted_at', 'is', null);
  if (nameserverId !== undefined) query = query.where('id', '=', nameserverId);
  const nameservers = await query.orderBy('id').execute();
  if (nameserverId !== undefined && nameservers.length === 0) throw new Error(`no live nameserver with id ${nameserverId}`);
  const skipped: PublishAllResult['skipped'] = [];
  const targets: number[] = [];
  for (const ns of nameservers) {
    const reason = unpublishedReason(config, ns);
    if (reason) skipped.push({ id: ns.id, name: ns.name, reason });
    else targets.push(ns.id);
  }
  if (targets.length === 0) return { queued: 0, skipped };
  const inserted = await db
    .insertInto('dns.publish_jobs')
    .columns(['nameserver_id', 'zone_id', 'created_at', 'next_attempt_at'])
    .expression((eb) =>
      eb.selectFrom('dns.zone_nameservers as zn')
        .innerJoin('dns.zones as z', 'z.id', 'zn.zone_id')
        .select((s) => ['zn.nameserver_id', 'zn.zone_id', s.val(now).as('created_at'), s.val(now).as('next_attempt_at')])
        .where('z.deleted_at', 'is', null)
        .where('zn.nameserver_id', 'in', targets),
    )
    .executeTakeFirst();
  return { queued: Number(inserted.numInsertedOrUpdatedRows ?? 0), skipped };
}

/**
 * Waits (polling, at most `timeoutMs`) until no publish job of the zone queued up to now is left: a PowerDNS API
 * client (an ACME client) expects a change to be served once its PATCH answered, as it is on PowerDNS itself.
 * Only this zone's jobs count (each zone is published on its own). True when everything went out, false on
 * timeout (the jobs stay queued and go out later).
 */
export async function waitForZonePublished(db: Db, zoneId: number, timeoutMs: number): Promise<boolean> {
  const last = await db.selectFrom('dns.publish_jobs').select((eb) => eb.fn.max('id').as('id')).where('zone_id', '=', zoneId).executeTakeFirst();
  if (!last?.id) return true;
  const deadline = Date.now() + timeoutMs;
  for (let wait = 10; ; wait = Math.min(100, wait * 2)) {
    const left = await db.selectFrom('dns.publish_jobs').select('id').where('zone_id', '=', zoneId).where('id', '<=', last.id).limit(1).executeTakeFirst();
    if (!left) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
