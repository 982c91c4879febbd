// Delegations across groups (issue 38.1): an administrator who manages a zone allows a zone of another group at a
// name above or below it (zone-tenancy.ts refuses such a zone otherwise). Rows are never removed: a withdrawn one
// keeps who allowed it and when, and who withdrew it and when. Withdrawing does not touch a zone created under
// it; it stops new creates, restores and moves into that group at that name.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { fieldError, isInZone } from '../../dns';
import { conflict, notFound } from '../../errors';
import { findGroupById } from '../../queries/groups';
import {
  findZoneDelegationById, findZoneDelegations, insertZoneDelegation, withdrawZoneDelegation, type ZoneDelegationRow,
} from '../../queries/zone-delegations';
import { findZoneById } from '../../queries/zones';
import type { Caller } from '../access/caller';
import { assertAdmin } from '../directory/permissions';
import { assertGroupAccess } from './dns-access';
import { invalidInput } from './dns-errors';
import { lockZoneName } from './zone-tenancy';
import { checkZoneFields, lockZoneForChange } from './zones';

export interface ZoneDelegation {
  id: number;
  zid: number;
  zone: string;
  gid: number;
  allowed_by: number;
  allowed_at: string;
  deleted: boolean;
  deleted_by: number | null;
  deleted_at: string | null;
}

export function serializeZoneDelegation(row: ZoneDelegationRow): ZoneDelegation {
  return {
    id: row.id, zid: row.zone_id, zone: row.name, gid: row.group_id, allowed_by: row.allowed_by, allowed_at: row.created_at.toISOString(),
    deleted: row.deleted_at !== null, deleted_by: row.deleted_by, deleted_at: row.deleted_at?.toISOString() ?? null,
  };
}

const ACTION = 'allow or withdraw a zone of another group above or below a zone';

export async function createZoneDelegation(deps: Deps, caller: Caller, zoneId: number, input: { zone: string; gid: number }): Promise<ZoneDelegation> {
  assertAdmin(caller, ACTION);
  const name = checkZoneFields({ zone: input.zone }).name as string;
  return deps.db.transaction().execute(async (trx) => {
    const zone = await lockZoneForChange(trx, caller, zoneId, 'Zone', { secondaryOk: true });
    if (name === zone.name || !(isInZone(name, zone.name) || isInZone(zone.name, name))) {
      throw invalidInput('delegation', [fieldError('zone', 'not_related', `zone must be a name above or below ${zone.name}`)]);
    }
    const group = await findGroupById(trx, input.gid);
    if (!group || group.deleted_at) throw notFound('Group not found');
    const row = await insertZoneDelegation(trx, { zone_id: zone.id, name, group_id: input.gid, allowed_by: caller.userId }, deps.clock.now())
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? conflict('That zone is already allowed for that group') : err;
      });
    return serializeZoneDelegation(row);
  });
}

/** A zone's delegations (withdrawn ones with deleted=true), for whoever may read the zone. */
export async function listZoneDelegations(deps: Deps, caller: Caller, zoneId: number, options: { deleted: boolean }): Promise<ZoneDelegation[]> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  return (await findZoneDelegations(deps.db, zoneId, options)).map(serializeZoneDelegation);
}

export async function withdrawZoneDelegationOf(deps: Deps, caller: Caller, zoneId: number, delegationId: number): Promise<ZoneDelegation> {
  assertAdmin(caller, ACTION);
  return deps.db.transaction().execute(async (trx) => {
    const found = await findZoneDelegationById(trx, delegationId);
    if (!found || found.zone_id !== zoneId) throw notFound('Delegation not found');
    // The name's locks as a create of that name takes them, and before any zone row as a create does (the zone is
    // above or below the name): a create relying on this delegation has committed, or will not see it.
    await lockZoneName(trx, found.name);
    await lockZoneForChange(trx, caller, zoneId, 'Zone', { secondaryOk: true });
    const row = await findZoneDelegationById(trx, delegationId, { lock: true });
    if (!row || row.deleted_at) throw notFound('Delegation not found');
    const after = await withdrawZoneDelegation(trx, row.id, caller.userId, deps.clock.now());
    if (!after) throw notFound('Delegation not found');
    return serializeZoneDelegation(after);
  });
}
