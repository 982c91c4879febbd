// Zones: the SOA lives in the zone row (RFC 1912 defaults), NS records derive from the assigned nameservers,
// and the serial (YYYYMMDDnn) advances on every change of the zone or its records.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { checkName, checkTtl, checkZoneName, defaultMailbox, derivedRecords, fieldError, mailboxToRname, MAX_SERIAL, nextSerial, normalizeName, SOA_DEFAULTS, type FieldError } from '../../dns';
import { conflict, notFound } from '../../errors';
import type { Db } from '../../queries/db';
import { groupSignsNewZones } from '../../queries/groups';
import { findLiveNameserversByIds, type NameserverRow } from '../../queries/nameservers';
import {
  findZoneById, findZoneNameservers, findZones, insertZone, replaceZoneNameservers, updateZone,
  ZONE_SORT_COLUMNS, type ZoneListFilter, type ZoneRow, type ZoneValues,
} from '../../queries/zones';
import { idsOf, serializeZone, type Zone } from '../../serialize-zones';
import type { Caller } from '../access/caller';
import { assertUsableNsAllow } from '../directory/permission-objects';
import { assertGroupAccess, assertGroupUsableForNewObject, assertNameserverUsable, listRoot } from './dns-access';
import { invalidInput } from './dns-errors';
import { assertZoneQuota } from './quotas';
import { checkNameserverChange } from './zone-rules';
import { assertZonePlacement } from './zone-tenancy';
import { findSecondaryZone, secondaryZoneIds } from '../../queries/secondary-zones';
import { assertNotSecondary, secondaryZoneRefusal } from './secondary/read-only';

export interface ZoneInput {
  gid?: number;
  zone?: string;
  description?: string;
  mailaddr?: string;
  refresh?: number;
  retry?: number;
  expire?: number;
  minimum?: number;
  ttl?: number;
  serial?: number;
  nameservers?: number[];
  deleted?: boolean;
  dnssec?: boolean;
  nsec3?: boolean;
}

/** What GET /zone can sort by (sort_by). */
export const ZONE_SORT_KEYS = Object.keys(ZONE_SORT_COLUMNS) as [ZoneListFilter['sortBy'], ...ZoneListFilter['sortBy'][]];

export const duplicateZone = () => conflict('A zone with that name already exists');

const SOA_TIMERS = ['refresh', 'retry', 'expire', 'minimum'] as const;
const SECONDARY_SOA_FIELDS = ['mailaddr', 'refresh', 'retry', 'expire', 'minimum', 'ttl', 'serial'] as const;

/** Checks the zone's own fields; returns them normalized (the API and import-nictool alike). */
export function checkZoneFields(input: ZoneInput): Partial<ZoneValues> {
  const errors: FieldError[] = [];
  const out: Partial<ZoneValues> = {};
  if (input.zone !== undefined) {
    out.name = normalizeName(input.zone.endsWith('.') ? input.zone : `${input.zone}.`);
    errors.push(...checkZoneName('zone', out.name));
  }
  if (input.mailaddr !== undefined) {
    out.mailaddr = mailboxToRname(input.mailaddr);
    errors.push(...checkName('mailaddr', out.mailaddr, { mailbox: true }));
  }
  for (const timer of SOA_TIMERS) {
    const value = input[timer];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0 || value > 2147483647) {
      errors.push(fieldError(timer, 'soa_timer', `${timer} must be an integer from 0 to 2147483647`));
    }
    out[timer] = value;
  }
  if (input.ttl !== undefined) {
    errors.push(...checkTtl('ttl', input.ttl));
    out.ttl = input.ttl;
  }
  if (input.serial !== undefined && (!Number.isInteger(input.serial) || input.serial < 0 || input.serial > MAX_SERIAL)) {
    errors.push(fieldError('serial', 'serial', `serial must be an integer from 0 to ${MAX_SERIAL}`));
  }
  if (input.description !== undefined) out.description = input.description;
  if (input.dnssec !== undefined) out.dnssec = input.dnssec;
  if (input.nsec3 !== undefined) out.nsec3 = input.nsec3;
  if (errors.length) throw invalidInput('zone', errors);
  return out;
}

/** The nameservers to assign, in the given order: live, usable by the caller and by the zone's group (usable_ns), none twice. */
async function resolveNameservers(db: Db, caller: Caller, ids: number[], zoneGroupId: number): Promise<NameserverRow[]> {
  if (new Set(ids).size !== ids.length) throw invalidInput('zone', [fieldError('nameservers', 'duplicate', 'a nameserver is listed twice')]);
  // Shared row locks: a concurrent DELETE /nameserver waits for this assignment, then sees it and refuses.
  const rows = await findLiveNameserversByIds(db, ids, { share: true });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw notFound(`Nameserver not found: ${missing.join(', ')}`);
  for (const row of rows) await assertNameserverUsable(db, caller, row.group_id);
  await assertUsableNsAllow(db, zoneGroupId, rows);
  return ids.map((id) => byId.get(id) as NameserverRow);
}

export async function getZone(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<Zone> {
  const zone = await findZoneById(deps.db, id);
  if (!zone || (zone.deleted_at !== null) !== options.deleted) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const ns = await findZoneNameservers(deps.db, [zone.id]);
  return serializeZone(zone, idsOf(ns.get(zone.id) ?? []));
}

/** GET /zone/<id>/ns: the NS records the zone's nameservers give, as export writes them. */
export async function zoneNsRecords(deps: Deps, caller: Caller, id: number): Promise<Array<{ owner: string; ttl: number; dname: string }>> {
  const zone = await findZoneById(deps.db, id);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const nameservers = (await findZoneNameservers(deps.db, [zone.id])).get(zone.id) ?? [];
  return derivedRecords({ name: zone.name, ttl: zone.ttl, nameservers })
    .filter((r) => r.type === 'NS')
    .map((r) => ({ owner: r.owner, ttl: r.ttl, dname: String(r.rdata.dname) }));
}

/**
 * A zone the caller may change, locked for the rest of the transaction (serializes changes per zone). The records of
 * a zone kept as a secondary of an outside primary are refused here (409) unless `secondaryOk` (changes that leave
 * its records alone: deleting it, delegations).
 */
export async function lockZoneForChange(trx: Db, caller: Caller, id: number, what = 'Zone', options: { secondaryOk?: boolean } = {}): Promise<ZoneRow> {
  const zone = await findZoneById(trx, id, { lock: true });
  if (!zone || zone.deleted_at) throw notFound(`${what} not found`);
  await assertGroupAccess(trx, caller, zone.group_id, 'zone');
  if (!options.secondaryOk) await assertNotSecondary(trx, zone);
  return zone;
}

export async function listZones(
  deps: Deps, caller: Caller,
  query: Omit<ZoneListFilter, 'groups'> & { gid?: number; include_subgroups: boolean },
): Promise<{ zones: Zone[]; total: number; filtered: number }> {
  // The subtree is resolved inside the zone query: one round trip fewer than listing its ids first.
  const root = await listRoot(deps.db, caller, query.gid);
  const groups = query.include_subgroups ? { subtreeOf: root } : [root];
  const { rows, total, filtered } = await findZones(deps.db, { ...query, groups });
  const secondaries = await secondaryZoneIds(deps.db, rows.map((r) => r.id));
  return { zones: rows.map((r) => serializeZone(r, r.nameserverIds, secondaries.has(r.id) ? { secondary: true } : {})), total, filtered };
}

export async function createZone(deps: Deps, caller: Caller, input: ZoneInput & { zone: string }): Promise<Zone> {
  const fields = checkZoneFields(input);
  const groupId = input.gid ?? caller.groupId;
  return deps.db.transaction().execute(async (trx) => {
    await assertGroupUsableForNewObject(trx, caller, groupId);
    await assertZoneQuota(trx, deps.config.quotas, groupId);
    const name = fields.name as string;
    await assertZonePlacement(trx, caller, { name, groupId });
    const nameservers = await resolveNameservers(trx, caller, input.nameservers ?? [], groupId);
    const now = deps.clock.now();
    const zone = await insertZone(trx, {
      group_id: groupId, name, description: fields.description ?? '', mailaddr: fields.mailaddr ?? defaultMailbox(name),
      serial: input.serial ?? nextSerial(0, now), refresh: fields.refresh ?? SOA_DEFAULTS.refresh, retry: fields.retry ?? SOA_DEFAULTS.retry,
      expire: fields.expire ?? SOA_DEFAULTS.expire, minimum: fields.minimum ?? SOA_DEFAULTS.minimum, ttl: fields.ttl ?? SOA_DEFAULTS.ttl,
      dnssec: input.dnssec ?? (await groupSignsNewZones(trx, groupId)), nsec3: input.nsec3 ?? false,
    }, now).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateZone() : err;
    });
    await checkNameserverChange(trx, zone, [], nameservers);
    const nameserverIds = idsOf(nameservers);
    await replaceZoneNameservers(trx, zone.id, nameserverIds);
    const wire = serializeZone(zone, nameserverIds);
    await deps.audit.record(trx, { actor: caller, objectType: 'zone', objectId: zone.id, action: 'create', before: null, after: wire });
    return wire;
  });
}

/**
 * The serial a change leaves: a larger one the client sent, else the next one (the client's equal to the
 * current, as read back, means "no opinion"). Never backwards: a smaller one is a 400.
 */
function serialAfterChange(current: number, requested: number | undefined, now: Date): number {
  if (requested === undefined || requested === current) return nextSerial(current, now);
  if (requested < current) {
    throw invalidInput('zone', [fieldError('serial', 'serial_backwards', `serial ${requested} would go backwards from ${current}; send a larger one or none`)]);
  }
  return requested;
}

/** Changes SOA fields, description or nameservers, or (deleted:false) restores; the serial advances. */
export async function changeZone(deps: Deps, caller: Caller, id: number, input: ZoneInput): Promise<Zone> {
  const fields = checkZoneFields(input);
  return deps.db.transaction().execute(async (trx) => {
    const before = await findZoneById(trx, id, { lock: true });
    const restoring = input.deleted === false;
    if (!before || (before.deleted_at !== null) !== restoring) throw notFound('Zone not found');
    await assertGroupAccess(trx, caller, before.group_id, 'zone');
    // A zone stored before its name was refused (a leading "-") is not restored under it: it could not be published.
    if (restoring) checkZoneFields({ zone: before.name });
    // A secondary's SOA, serial included, is its primary's: only what is Keyzone's own (description, nameservers, group,
    // signing) changes, and the serial stays the primary's (a newer transfer must still be newer).
    const secondary = await findSecondaryZone(trx, id);
    if (secondary && SECONDARY_SOA_FIELDS.some((f) => input[f] !== undefined)) throw secondaryZoneRefusal(before, secondary.primary_address);
    if (input.gid !== undefined || restoring) {
      // Moving or restoring puts the zone (back) into a group, which must be live: share-locked like a create,
      // so a concurrent DELETE /group counts it; a deleted group is a 404.
      await assertGroupUsableForNewObject(trx, caller, input.gid ?? before.group_id);
      if (input.gid !== undefined) fields.group_id = input.gid;
      // Someone may have created a zone above or below it meanwhile; a group it moves to needs the same right.
      await assertZonePlacement(trx, caller, { name: before.name, groupId: input.gid ?? before.group_id, zoneId: id });
    }
    const nsBefore = (await findZoneNameservers(trx, [id])).get(id) ?? [];
    const nameservers = input.nameservers ? await resolveNameservers(trx, caller, input.nameservers, input.gid ?? before.group_id) : nsBefore;
    // A zone moved to another group keeps its nameservers only if that group's usable_ns allows them.
    if (!input.nameservers && input.gid !== undefined) await assertUsableNsAllow(trx, input.gid, nsBefore);
    const now = deps.clock.now();
    const serial = secondary ? before.serial : serialAfterChange(before.serial, input.serial, now);
    const after = await updateZone(trx, id, { ...fields, serial, ...(restoring ? { deleted_at: null } : {}) }, now)
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? duplicateZone() : err;
      });
    if (!after) throw notFound('Zone not found');
    if (input.nameservers) {
      await checkNameserverChange(trx, after, nsBefore, nameservers);
      await replaceZoneNameservers(trx, id, idsOf(nameservers));
    }
    const wire = serializeZone(after, idsOf(nameservers));
    await deps.audit.record(trx, {
      actor: caller, objectType: 'zone', objectId: id, action: restoring ? 'restore' : 'update',
      before: serializeZone(before, idsOf(nsBefore)), after: wire,
    });
    return wire;
  });
}

/** Soft delete: the zone and its records disappear from lists and exports; `deleted:false` brings them back. */
export async function deleteZone(deps: Deps, caller: Caller, id: number): Promise<Zone> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await lockZoneForChange(trx, caller, id, 'Zone', { secondaryOk: true });
    const ns = (await findZoneNameservers(trx, [id])).get(id) ?? [];
    const now = deps.clock.now();
    const after = await updateZone(trx, id, { deleted_at: now, serial: nextSerial(before.serial, now) }, now);
    if (!after) throw notFound('Zone not found');
    const wire = serializeZone(after, idsOf(ns));
    await deps.audit.record(trx, { actor: caller, objectType: 'zone', objectId: id, action: 'delete', before: serializeZone(before, idsOf(ns)), after: wire });
    return wire;
  });
}

/** Advances a locked zone's serial after a change to its records. */
export async function bumpSerial(trx: Db, zone: ZoneRow, now: Date): Promise<void> {
  await updateZone(trx, zone.id, { serial: nextSerial(zone.serial, now) }, now);
}
