// Zone records: owner relative or absolute (stored absolute), per-type RDATA checked by the type module,
// zone rules checked against the zone's current records inside the transaction that holds the zone row
// lock; each change advances the zone's serial and writes an audit entry.
import type { Deps } from '../../deps';
import { fieldError, isInZone, validateRecord, type ZoneRecord } from '../../dns';
import { notFound } from '../../errors';
import type { Db } from '../../queries/db';
import {
  findRecordsNear, findZoneRecordById, findZoneRecords, insertZoneRecord, updateZoneRecord,
  RECORD_SORT_COLUMNS, type RecordListFilter, type ZoneRecordRow,
} from '../../queries/zone-records';
import { findZoneById, findZoneNameservers, type ZoneRow } from '../../queries/zones';
import { serializeZoneRecord, type ZoneRecordWire } from '../../serialize-zones';
import type { Caller } from '../access/caller';
import { assertGroupAccess } from './dns-access';
import { invalidInput } from './dns-errors';
import { checkRecordChange, rrsetTtl, toZoneRecord } from './zone-rules';
import { assertRecordQuota } from './quotas';
import { bumpSerial, lockZoneForChange } from './zones';
import { assertOutsideChildZones } from './zone-tenancy';

/** What GET /zone_record sorts by (sort_by). */
export const RECORD_SORT_KEYS = Object.keys(RECORD_SORT_COLUMNS) as [RecordListFilter['sortBy'], ...RecordListFilter['sortBy'][]];

export interface RecordInput {
  zid?: number;
  owner?: string;
  type?: string;
  ttl?: number;
  description?: string;
  deleted?: boolean;
  /** the type's RDATA fields */
  rdata: Record<string, unknown>;
}

/** Validates one record for a zone; throws 400 naming every field and rule it breaks. */
async function buildRecord(trx: Db, zone: ZoneRow, input: { owner: string; type: string; ttl?: number; rdata: Record<string, unknown> }, exceptId?: number): Promise<ZoneRecord> {
  const ttl = input.ttl ?? zone.ttl;
  const { record, errors } = validateRecord(zone.name, { owner: input.owner, type: input.type, ttl, rdata: input.rdata });
  if (!record) throw invalidInput('zone record', errors);
  if (!isInZone(record.owner, zone.name)) {
    throw invalidInput('zone record', [fieldError('owner', 'outside_zone', `owner ${record.owner} must lie inside the zone ${zone.name}`)]);
  }
  // Without a TTL, a record joins its RRset at the set's TTL (the TTL belongs to the set).
  if (input.ttl === undefined) record.ttl = (await rrsetTtl(trx, zone, record.owner, record.type, exceptId)) ?? zone.ttl;
  return record;
}

async function readableRecord(deps: Deps, caller: Caller, id: number): Promise<{ row: ZoneRecordRow; zone: ZoneRow }> {
  const row = await findZoneRecordById(deps.db, id);
  const zone = row && (await findZoneById(deps.db, row.zone_id));
  if (!row || !zone || zone.deleted_at) throw notFound('Zone record not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone record');
  return { row, zone };
}

export async function getZoneRecord(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<ZoneRecordRow> {
  const { row } = await readableRecord(deps, caller, id);
  if ((row.deleted_at !== null) !== options.deleted) throw notFound('Zone record not found');
  return row;
}

/** Access check for a record's history: the record may be deleted, its zone must be readable. */
export async function assertRecordReadable(deps: Deps, caller: Caller, id: number): Promise<void> {
  await readableRecord(deps, caller, id);
}

export async function listZoneRecords(
  deps: Deps, caller: Caller, zoneId: number, query: Omit<RecordListFilter, 'zoneId'>,
): Promise<{ records: ZoneRecordWire[]; total: number; filtered: number }> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const { rows, total, filtered } = await findZoneRecords(deps.db, { ...query, zoneId });
  return { records: rows.map(serializeZoneRecord), total, filtered };
}

export async function createZoneRecord(
  deps: Deps, caller: Caller, input: RecordInput & { zid: number; owner: string; type: string },
): Promise<ZoneRecordRow> {
  return deps.db.transaction().execute(async (trx) => {
    const zone = await lockZoneForChange(trx, caller, input.zid);
    await assertRecordQuota(trx, deps.config.quotas, zone.id, 1);
    const nameservers = (await findZoneNameservers(trx, [zone.id])).get(zone.id) ?? [];
    const record = await buildRecord(trx, zone, { owner: input.owner, type: input.type, ttl: input.ttl, rdata: input.rdata });
    await assertOutsideChildZones(trx, zone, [record]);
    await checkRecordChange(trx, zone, nameservers, { add: record });
    const now = deps.clock.now();
    const row = await insertZoneRecord(trx, { zone_id: zone.id, ...record, description: input.description ?? '' }, now);
    await bumpSerial(trx, zone, now);
    await deps.audit.record(trx, { actor: caller, objectType: 'zone_record', objectId: row.id, action: 'create', before: null, after: serializeZoneRecord(row) });
    return row;
  });
}

/**
 * Changes a record (fields not given keep their values; a new type needs its full RDATA) or, with
 * deleted:false, restores it, re-checking the zone rules either way. An explicit ttl is the TTL of the
 * record's RRset: the other records of the set take it too (each with its own history entry).
 */
export async function changeZoneRecord(deps: Deps, caller: Caller, id: number, input: RecordInput): Promise<ZoneRecordRow> {
  return deps.db.transaction().execute(async (trx) => {
    const current = await findZoneRecordById(trx, id);
    if (!current) throw notFound('Zone record not found');
    const zone = await lockZoneForChange(trx, caller, current.zone_id, 'Zone record');
    const before = await findZoneRecordById(trx, id, { lock: true });
    const restoring = input.deleted === false;
    if (!before || (before.deleted_at !== null) !== restoring) throw notFound('Zone record not found');
    const type = (input.type ?? before.type).toUpperCase();
    const rdata = type === before.type ? { ...before.rdata, ...input.rdata } : input.rdata;
    const record = await buildRecord(trx, zone, {
      owner: input.owner ?? before.owner, type, ttl: input.ttl ?? (input.owner || input.type ? undefined : before.ttl), rdata,
    }, id);
    await assertOutsideChildZones(trx, zone, [record]);
    const nameservers = (await findZoneNameservers(trx, [zone.id])).get(zone.id) ?? [];
    // A TTL given explicitly is the RRset's new TTL: the other records of the set follow it.
    const siblings = input.ttl === undefined || restoring
      ? []
      : (await findRecordsNear(trx, zone.id, [record.owner])).filter((r) => r.owner === record.owner && r.type === record.type && r.id !== id && r.ttl !== record.ttl);
    const retime = { ids: siblings.map((r) => r.id), ttl: record.ttl };
    await checkRecordChange(trx, zone, nameservers, restoring ? { add: record } : { removeId: id, removed: toZoneRecord(before), add: record, retime });
    const now = deps.clock.now();
    const after = await updateZoneRecord(trx, id, {
      ...record, ...(input.description !== undefined ? { description: input.description } : {}), ...(restoring ? { deleted_at: null } : {}),
    }, now);
    if (!after) throw notFound('Zone record not found');
    for (const sibling of siblings) {
      const moved = await updateZoneRecord(trx, sibling.id, { ttl: record.ttl }, now);
      if (moved) {
        await deps.audit.record(trx, {
          actor: caller, objectType: 'zone_record', objectId: sibling.id, action: 'update', before: serializeZoneRecord(sibling), after: serializeZoneRecord(moved),
        });
      }
    }
    await bumpSerial(trx, zone, now);
    await deps.audit.record(trx, {
      actor: caller, objectType: 'zone_record', objectId: id, action: restoring ? 'restore' : 'update',
      before: serializeZoneRecord(before), after: serializeZoneRecord(after),
    });
    return after;
  });
}

/** Soft delete, refused when the zone would break without the record (e.g. the only address of an in-zone NS). */
export async function deleteZoneRecord(deps: Deps, caller: Caller, id: number): Promise<ZoneRecordRow> {
  return deps.db.transaction().execute(async (trx) => {
    const current = await findZoneRecordById(trx, id);
    if (!current) throw notFound('Zone record not found');
    const zone = await lockZoneForChange(trx, caller, current.zone_id, 'Zone record');
    const before = await findZoneRecordById(trx, id, { lock: true });
    if (!before || before.deleted_at) throw notFound('Zone record not found');
    const nameservers = (await findZoneNameservers(trx, [zone.id])).get(zone.id) ?? [];
    await checkRecordChange(trx, zone, nameservers, { removeId: id, removed: toZoneRecord(before) });
    const now = deps.clock.now();
    const after = await updateZoneRecord(trx, id, { deleted_at: now }, now);
    if (!after) throw notFound('Zone record not found');
    await bumpSerial(trx, zone, now);
    await deps.audit.record(trx, { actor: caller, objectType: 'zone_record', objectId: id, action: 'delete', before: serializeZoneRecord(before), after: serializeZoneRecord(after) });
    return after;
  });
}
