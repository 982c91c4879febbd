// A transfer from the primary applied to a secondary zone as one ordinary Keyzone change: the records read through
// the zone file import's parser and zone rules first (no transaction open, no network call afterwards), then in one
// transaction: the zone's row locked, the records that differ deleted, re-timed or added (each with a history entry
// naming the system actor), the child-zone and quota checks every write passes, the SOA taken from the primary, and
// one zone history entry, which queues the zone for Keyzone's nameservers.
import type { Deps } from '../../../deps';
import { derivedRecords, importZone, nextSerial, rdataKey, type ZoneRecord } from '../../../dns';
import type { RawRecord } from '../../../dns-server/message';
import { insertAuditEntry } from '../../../queries/audit';
import { findSecondaryZone, samePrimary, type SecondaryPrimary } from '../../../queries/secondary-zones';
import { findLiveZoneRecords, insertZoneRecord, updateZoneRecord, type ZoneRecordRow } from '../../../queries/zone-records';
import { findZoneById, findZoneNameservers, updateZone } from '../../../queries/zones';
import { idsOf, serializeZone, serializeZoneRecord } from '../../../serialize-zones';
import type { Caller } from '../../access/caller';
import { zoneFileOfTransfer } from '../import-axfr';
import { assertRecordQuota } from '../quotas';
import { assertOutsideChildZones } from '../zone-tenancy';
import { serialNewer } from './serial';

export const SECONDARY_ACTOR = 'secondary-refresh';

/** Why a transfer could not be applied (the message is kept as the zone's last error). */
export class SecondaryError extends Error {}

export interface AppliedTransfer {
  /** false when another instance applied this serial (or a newer one) first */
  applied: boolean;
  serial: number;
  created: number;
  deleted: number;
  retimed: number;
}

const keyOf = (r: Pick<ZoneRecord, 'owner' | 'type' | 'rdata'>) => `${r.owner} ${r.type} ${rdataKey(r)}`;

export async function applyTransfer(deps: Deps, zoneId: number, zoneName: string, transferred: RawRecord[], from: SecondaryPrimary): Promise<AppliedTransfer> {
  const { lines, unreadable } = zoneFileOfTransfer(zoneName.replace(/\.$/, ''), transferred);
  if (unreadable.length > 0) throw new SecondaryError(`the zone holds records Keyzone cannot read from a transfer yet: ${unreadable.join(', ')}`);
  const records: ZoneRecord[] = [];
  const parsed = await importZone(zoneName, lines.join('\n'), { onRecord: (r) => void records.push({ owner: r.owner, type: r.type, ttl: r.ttl, rdata: r.rdata }) });
  if (parsed.errorCount > 0 || !parsed.soa) {
    const shown = parsed.errors.slice(0, 5).map((e) => e.message).join('; ');
    throw new SecondaryError(`the primary's zone breaks Keyzone's rules (${parsed.errorCount} problem(s)): ${shown}`);
  }
  const soa = parsed.soa;
  return deps.db.transaction().execute(async (trx) => {
    const zone = await findZoneById(trx, zoneId, { lock: true });
    if (!zone || zone.deleted_at) throw new SecondaryError('the zone was deleted');
    const secondary = await findSecondaryZone(trx, zoneId);
    if (!secondary) throw new SecondaryError('the zone is no longer a secondary');
    // Re-pointed at another primary while this one was asked: its zone is not the one wanted any more.
    if (!samePrimary(secondary, from)) throw new SecondaryError('the zone\'s primary was changed during the check');
    if (secondary.primary_serial !== null && !serialNewer(soa.serial, secondary.primary_serial)) {
      return { applied: false, serial: secondary.primary_serial, created: 0, deleted: 0, retimed: 0 };
    }
    const nameservers = (await findZoneNameservers(trx, [zoneId])).get(zoneId) ?? [];
    // The apex NS and glue Keyzone derives from the zone's nameservers are not stored (as the zone file import does).
    const derived = new Set(derivedRecords({ name: zone.name, ttl: 0, nameservers }).map(keyOf));
    const wanted = new Map<string, ZoneRecord>();
    for (const r of records) if (!derived.has(keyOf(r))) wanted.set(keyOf(r), r);
    const current = await findLiveZoneRecords(trx, zoneId);
    const deletes: ZoneRecordRow[] = [];
    const retimes: Array<{ row: ZoneRecordRow; ttl: number }> = [];
    const seen = new Set<string>();
    for (const row of current) {
      const key = keyOf(row);
      const want = wanted.get(key);
      if (!want || seen.has(key)) deletes.push(row);
      else if (want.ttl !== row.ttl) retimes.push({ row, ttl: want.ttl });
      seen.add(key);
    }
    const inserts = [...wanted.entries()].filter(([key]) => !seen.has(key)).map(([, r]) => r);
    // Counted before anything is written: a primary sending far more than the zone may hold would otherwise cost a
    // transaction of inserts and history entries, rolled back at the end, at every retry.
    const overQuota = (err: unknown) => {
      throw new SecondaryError(`the primary's zone is over Keyzone's quota: ${(err as Error).message}`);
    };
    await assertRecordQuota(trx, deps.config.quotas, zoneId, inserts.length - deletes.length).catch(overQuota);
    await assertOutsideChildZones(trx, zone, inserts, inserts.filter((r) => r.type === 'NS')).catch((err: unknown) => {
      throw new SecondaryError(`the primary's zone conflicts with Keyzone: ${(err as Error).message}`);
    });
    const now = deps.clock.now();
    const actor: Caller = { userId: 0, groupId: zone.group_id, isAdmin: false, sessionId: 0, system: SECONDARY_ACTOR };
    const history = (row: ZoneRecordRow, action: 'create' | 'update' | 'delete', before: ZoneRecordRow | null, after: ZoneRecordRow | null) => insertAuditEntry(trx, {
      object_type: 'zone_record', object_id: row.id, zone_id: zoneId, action, user_id: null, actor_name: SECONDARY_ACTOR, at: now,
      before: before && { ...serializeZoneRecord(before) }, after: after && { ...serializeZoneRecord(after) },
      ip: null, api_token_id: null, api_token_name: null, tsig_key_id: null, tsig_key_name: null,
    });
    for (const row of deletes) {
      const after = await updateZoneRecord(trx, row.id, { deleted_at: now }, now);
      await history(row, 'delete', row, after ?? null);
    }
    for (const { row, ttl } of retimes) {
      const after = await updateZoneRecord(trx, row.id, { ttl }, now);
      await history(row, 'update', row, after ?? null);
    }
    for (const r of inserts) {
      const row = await insertZoneRecord(trx, { zone_id: zoneId, owner: r.owner, type: r.type, ttl: r.ttl, rdata: r.rdata, description: '' }, now);
      await history(row, 'create', null, row);
    }
    await assertRecordQuota(trx, deps.config.quotas, zoneId, 0).catch(overQuota);
    // Keyzone's serial follows the primary's; after a change of Keyzone's own (nameservers) took it past, it still advances.
    const serial = serialNewer(soa.serial, zone.serial) ? soa.serial : nextSerial(zone.serial, now);
    const after = await updateZone(trx, zoneId, {
      mailaddr: soa.rname, serial, refresh: soa.refresh, retry: soa.retry, expire: soa.expire, minimum: soa.minimum, ttl: parsed.defaultTtl ?? soa.ttl ?? zone.ttl,
    }, now);
    const ids = idsOf(nameservers);
    await deps.audit.record(trx, { actor, objectType: 'zone', objectId: zoneId, action: 'update', before: serializeZone(zone, ids), after: serializeZone(after!, ids) });
    return { applied: true, serial: soa.serial, created: inserts.length, deleted: deletes.length, retimed: retimes.length };
  });
}
