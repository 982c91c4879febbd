import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { canonicalIpv6, checkHostName, checkName, isIpv4, normalizeName, checkTtl, fieldError, nextSerial, type FieldError, type NameserverExportType } from '../../dns';
import { conflict, notFound } from '../../errors';
import { findAncestorGroupIds } from '../../queries/group-tree';
import {
  countLiveZonesOfNameserver, findNameserverById, findNameservers, insertNameserver, updateNameserver,
  type NameserverRow, type NameserverValues,
} from '../../queries/nameservers';
import { findZoneById, findZoneNameservers, findZonesOfNameserverForUpdate, updateZone } from '../../queries/zones';
import { serializeNameserver } from '../../serialize-zones';
import type { Caller } from '../access/caller';
import { assertGroupAccess, assertGroupUsableForNewObject, assertNameserverUsable, listScope } from './dns-access';
import { invalidInput } from './dns-errors';
import { checkNameserverChange } from './zone-rules';

export interface NameserverInput {
  gid?: number;
  name?: string;
  address?: string | null;
  address6?: string | null;
  ttl?: number;
  description?: string;
  export?: { type: NameserverExportType };
  deleted?: boolean;
}

const duplicate = () => conflict('A nameserver with that name already exists');

/** Checks and normalizes the DNS fields of a nameserver; every problem is reported at once (API and import-nictool). */
export function checkNameserverFields(input: NameserverInput): Partial<NameserverValues> {
  const errors: FieldError[] = [];
  const out: Partial<NameserverValues> = {};
  if (input.name !== undefined) {
    const name = normalizeName(input.name.endsWith('.') ? input.name : `${input.name}.`);
    const nameErrors = checkName('name', name);
    errors.push(...(nameErrors.length ? nameErrors : checkHostName('name', name)));
    out.name = name;
  }
  if (input.address !== undefined && input.address !== null) {
    if (!isIpv4(input.address)) errors.push(fieldError('address', 'ipv4', 'address must be a dotted-quad IPv4 address'));
    out.address = input.address;
  } else if (input.address === null) out.address = null;
  if (input.address6 !== undefined && input.address6 !== null) {
    const v6 = canonicalIpv6(input.address6);
    if (!v6) errors.push(fieldError('address6', 'ipv6', 'address6 must be an IPv6 address'));
    out.address6 = v6 ?? null;
  } else if (input.address6 === null) out.address6 = null;
  if (input.ttl !== undefined) {
    errors.push(...checkTtl('ttl', input.ttl));
    out.ttl = input.ttl;
  }
  if (input.description !== undefined) out.description = input.description;
  if (input.export !== undefined) out.export_type = input.export.type;
  if (errors.length) throw invalidInput('nameserver', errors);
  return out;
}

export async function getNameserver(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<NameserverRow> {
  const ns = await findNameserverById(deps.db, id);
  if (!ns || (ns.deleted_at !== null) !== options.deleted) throw notFound('Nameserver not found');
  await assertNameserverUsable(deps.db, caller, ns.group_id);
  return ns;
}

/**
 * Nameservers of a group (default: the caller's), optionally with its subgroups'; `usable` adds those of the
 * groups above the caller's, which the caller may assign to zones but not change.
 */
export async function listNameservers(
  deps: Deps, caller: Caller, query: { gid?: number; deleted: boolean; include_subgroups: boolean; usable: boolean; name?: string },
): Promise<NameserverRow[]> {
  const groupIds = await listScope(deps.db, caller, query.gid, query.include_subgroups);
  if (query.usable) groupIds.push(...(await findAncestorGroupIds(deps.db, caller.groupId)));
  return findNameservers(deps.db, { groupIds, deleted: query.deleted, name: query.name });
}

export async function createNameserver(deps: Deps, caller: Caller, input: NameserverInput & { name: string }): Promise<NameserverRow> {
  const fields = checkNameserverFields(input);
  const groupId = input.gid ?? caller.groupId;
  return deps.db.transaction().execute(async (trx) => {
    await assertGroupUsableForNewObject(trx, caller, groupId);
    const values: NameserverValues = {
      group_id: groupId, name: fields.name as string, address: fields.address ?? null, address6: fields.address6 ?? null,
      ttl: fields.ttl ?? 3600, description: fields.description ?? '', export_type: fields.export_type ?? 'bind',
    };
    const ns = await insertNameserver(trx, values, deps.clock.now()).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicate() : err;
    });
    await deps.audit.record(trx, { actor: caller, objectType: 'nameserver', objectId: ns.id, action: 'create', before: null, after: serializeNameserver(ns) });
    return ns;
  });
}

/**
 * Changes (or with deleted:false restores) a nameserver. Zones it serves get a new serial: their NS
 * records and glue derive from it.
 */
export async function changeNameserver(deps: Deps, caller: Caller, id: number, input: NameserverInput): Promise<NameserverRow> {
  const fields = checkNameserverFields(input);
  return deps.db.transaction().execute(async (trx) => {
    // Locks are taken zone first, then nameserver, as PUT /zone does (its zone row, then its nameservers FOR
    // SHARE): locking the nameserver first deadlocked against it (PostgreSQL then aborted one side: a 500).
    // A zone assigned in between is locked by the second call below.
    await findZonesOfNameserverForUpdate(trx, id);
    const before = await findNameserverById(trx, id, { lock: true });
    const restoring = input.deleted === false;
    if (!before || (before.deleted_at !== null) !== restoring) throw notFound('Nameserver not found');
    await assertGroupAccess(trx, caller, before.group_id, 'nameserver');
    if (input.gid !== undefined || restoring) {
      // Moving or restoring puts the nameserver (back) into a group, which must be live: share-locked like a
      // create, so a concurrent DELETE /group counts it; a deleted group is a 404.
      await assertGroupUsableForNewObject(trx, caller, input.gid ?? before.group_id);
      if (input.gid !== undefined) fields.group_id = input.gid;
    }
    const now = deps.clock.now();
    const after = await updateNameserver(trx, id, { ...fields, ...(restoring ? { deleted_at: null } : {}) }, now).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicate() : err;
    });
    if (!after) throw notFound('Nameserver not found');
    // The zones it serves derive NS and glue from it: re-check their rules, then advance their serials.
    for (const { id: zoneId } of await findZonesOfNameserverForUpdate(trx, id)) {
      const zone = await findZoneById(trx, zoneId);
      if (!zone) continue;
      const nsAfter = (await findZoneNameservers(trx, [zoneId])).get(zoneId) ?? [];
      const nsBefore = nsAfter.map((n) => (n.id === id ? before : n));
      await checkNameserverChange(trx, zone, nsBefore, nsAfter);
      await updateZone(trx, zoneId, { serial: nextSerial(zone.serial, now) }, now);
    }
    await deps.audit.record(trx, {
      actor: caller, objectType: 'nameserver', objectId: id, action: restoring ? 'restore' : 'update',
      before: serializeNameserver(before), after: serializeNameserver(after),
    });
    return after;
  });
}

/** Soft delete; refused (409) while a live zone still uses the nameserver. */
export async function deleteNameserver(deps: Deps, caller: Caller, id: number): Promise<NameserverRow> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await findNameserverById(trx, id, { lock: true });
    if (!before || before.deleted_at) throw notFound('Nameserver not found');
    await assertGroupAccess(trx, caller, before.group_id, 'nameserver');
    const zones = await countLiveZonesOfNameserver(trx, id);
    if (zones > 0) throw conflict(`Cannot delete nameserver: ${zones} active zone(s) still use it.`);
    const now = deps.clock.now();
    const after = await updateNameserver(trx, id, { deleted_at: now }, now);
    if (!after) throw notFound('Nameserver not found');
    await deps.audit.record(trx, { actor: caller, objectType: 'nameserver', objectId: id, action: 'delete', before: serializeNameserver(before), after: serializeNameserver(after) });
    return after;
  });
}
