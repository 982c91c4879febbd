// Marking a zone as a secondary of an outside primary (import-axfr keep_secondary, PUT /zone/<id>/secondary),
// reading its state, and converting it back to a primary zone (DELETE /zone/<id>/secondary). Marking makes Keyzone
// connect to the address given: administrators only, as import-axfr. Un-marking is for whoever may write the zone.
import type { Deps } from '../../../deps';
import type { TsigKeyMaterial } from '../../../dns-server/tsig';
import { badRequest, notFound } from '../../../errors';
import type { Db } from '../../../queries/db';
import {
  deleteSecondaryZone, findSecondaryZone, findTsigKeyForPrimary, insertSecondaryZone, type SecondaryZoneRow,
} from '../../../queries/secondary-zones';
import { findZoneById, type ZoneRow } from '../../../queries/zones';
import { enqueuePublish } from '../../../publishing/queue';
import type { Caller } from '../../access/caller';
import { credentialOwnerInReach } from '../../access/credential-scope';
import { openSecret } from '../../access/tsig-keys';
import { assertAdmin, assertGroupAccess } from '../../directory/permissions';
import { lockZoneForChange } from '../zones';
import { checkTransferSource, type TransferSourceSettings } from '../transfer-sources';

export interface PrimaryInput {
  address: string;
  port?: number;
  tsig_key_id?: number | null;
}

export interface SecondaryWire {
  zone_id: number;
  primary: { address: string; port: number; tsig_key_id: number | null };
  state: 'pending' | 'current' | 'retrying' | 'expired';
  primary_serial: number | null;
  refresh: number | null;
  retry: number | null;
  expire: number | null;
  next_check_at: string;
  last_check_at: string | null;
  last_success_at: string | null;
  last_transfer_at: string | null;
  last_error: string | null;
  expired_at: string | null;
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

export function serializeSecondary(row: SecondaryZoneRow): SecondaryWire {
  const state = row.expired_at ? 'expired' : row.primary_serial === null ? 'pending' : row.last_error ? 'retrying' : 'current';
  return {
    zone_id: row.zone_id, primary: { address: row.primary_address, port: row.primary_port, tsig_key_id: row.tsig_key_id }, state,
    primary_serial: row.primary_serial, refresh: row.refresh, retry: row.retry, expire: row.expire, next_check_at: iso(row.next_check_at)!,
    last_check_at: iso(row.last_check_at), last_success_at: iso(row.last_success_at), last_transfer_at: iso(row.last_transfer_at),
    last_error: row.last_error, expired_at: iso(row.expired_at),
  };
}

/** The SOA refresh or retry a primary asks for, within dns.yml's bounds (a primary cannot make Keyzone ask every second). */
export function clampInterval(config: Deps['config'], seconds: number): number {
  return Math.min(config.dns.secondaryMaxRefreshSeconds, Math.max(config.dns.secondaryMinRefreshSeconds, seconds));
}

/** The stored key that signs the queries to the primary, its secret opened; undefined (or a 400 for a caller) when not in force. */
export async function primaryKey(deps: Pick<Deps, 'db' | 'config'>, keyId: number): Promise<TsigKeyMaterial | undefined> {
  const row = await findTsigKeyForPrimary(deps.db, keyId);
  const secret = row && openSecret(deps.config.dns.tsigSecretKey, row.name, row.secret_sealed);
  return row && secret ? { name: row.name, algorithm: row.algorithm, secret } : undefined;
}

/** A key the caller may use to reach the primary: in force and owned by a user in the caller's reach. */
export async function primaryKeyFor(deps: Deps, caller: Caller, keyId: number): Promise<TsigKeyMaterial> {
  const row = await findTsigKeyForPrimary(deps.db, keyId);
  if (!row) throw badRequest(`tsig_key_id: no TSIG key ${keyId} in force`);
  await credentialOwnerInReach(deps, caller, row.user_id, 'TSIG key');
  const key = await primaryKey(deps, keyId);
  if (!key) throw badRequest(`tsig_key_id: TSIG key ${keyId} cannot be opened with dns.yml's tsig_secret_key`);
  return key;
}

export function checkPrimaryAddress(config: TransferSourceSettings, address: string): string {
  return checkTransferSource(config, address, 'primary address');
}

/** Inside the import's (or PUT's) transaction: the zone becomes a secondary of the primary. */
export async function keepAsSecondary(
  trx: Db, deps: Deps, caller: Caller, zone: Pick<ZoneRow, 'id'>, primary: PrimaryInput,
  seen?: { serial: number; refresh: number; retry: number; expire: number },
): Promise<SecondaryZoneRow> {
  const now = deps.clock.now();
  return insertSecondaryZone(trx, {
    zone_id: zone.id, primary_address: checkPrimaryAddress(deps.config, primary.address), primary_port: primary.port ?? 53, tsig_key_id: primary.tsig_key_id ?? null,
    primary_serial: seen?.serial ?? null, refresh: seen?.refresh ?? null, retry: seen?.retry ?? null, expire: seen?.expire ?? null,
    next_check_at: seen ? new Date(now.getTime() + clampInterval(deps.config, seen.refresh) * 1000) : now,
    last_success_at: seen ? now : null, last_transfer_at: seen ? now : null, created_by: caller.system ? null : caller.userId, created_at: now,
  });
}

export async function getSecondary(deps: Deps, caller: Caller, zoneId: number): Promise<SecondaryWire> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const row = await findSecondaryZone(deps.db, zoneId);
  if (!row) throw notFound(`Zone ${zone.name} is not a secondary (it is a primary zone of Keyzone's)`);
  return serializeSecondary(row);
}

/**
 * PUT /zone/<id>/secondary: an existing zone becomes (or stays, with another primary) a secondary; its records are
 * replaced by the primary's at the first check, which is due at once.
 */
export async function markSecondary(deps: Deps, caller: Caller, zoneId: number, primary: PrimaryInput): Promise<SecondaryWire> {
  assertAdmin(caller, 'make a zone a secondary of an outside primary');
  checkPrimaryAddress(deps.config, primary.address);
  if (primary.tsig_key_id) await primaryKeyFor(deps, caller, primary.tsig_key_id);
  const row = await deps.db.transaction().execute(async (trx) => {
    const zone = await lockZoneForChange(trx, caller, zoneId, 'Zone', { secondaryOk: true });
    await deleteSecondaryZone(trx, zone.id);
    return keepAsSecondary(trx, deps, caller, zone, primary);
  });
  deps.secondaries?.kick();
  return serializeSecondary(row);
}

/** DELETE /zone/<id>/secondary: the zone becomes a primary zone of Keyzone's, its records as last transferred. */
export async function unmarkSecondary(deps: Deps, caller: Caller, zoneId: number): Promise<SecondaryWire> {
  const row = await deps.db.transaction().execute(async (trx) => {
    const zone = await lockZoneForChange(trx, caller, zoneId, 'Zone', { secondaryOk: true });
    const removed = await deleteSecondaryZone(trx, zone.id);
    if (!removed) throw notFound(`Zone ${zone.name} is not a secondary`);
    // An expired secondary was withdrawn from Keyzone's nameservers: as a primary zone it is served again.
    if (removed.expired_at && deps.config.publish.enabled) await enqueuePublish(trx, deps.config.publish, zone.id, deps.clock.now());
    return removed;
  });
  deps.publisher?.kick();
  return serializeSecondary(row);
}
