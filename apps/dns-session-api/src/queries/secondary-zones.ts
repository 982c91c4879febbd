// dns.secondary_zones: zones kept as secondaries of an outside primary (issue 44), and the claim that keeps two API
// instances from refreshing one zone at once (a lease, as publish jobs have: a crashed claimer's runs out).
import { sql } from 'kysely';
import type { Db } from './db';

export interface SecondaryZoneRow {
  zone_id: number;
  primary_address: string;
  primary_port: number;
  tsig_key_id: number | null;
  primary_serial: number | null;
  refresh: number | null;
  retry: number | null;
  expire: number | null;
  next_check_at: Date;
  last_check_at: Date | null;
  last_success_at: Date | null;
  last_transfer_at: Date | null;
  last_error: string | null;
  expired_at: Date | null;
  lease_until: Date | null;
  created_by: number | null;
  created_at: Date;
}

const columns = [
  'zone_id', 'primary_address', 'primary_port', 'tsig_key_id', 'primary_serial', 'refresh', 'retry', 'expire', 'next_check_at', 'last_check_at',
  'last_success_at', 'last_transfer_at', 'last_error', 'expired_at', 'lease_until', 'created_by', 'created_at',
] as const;

// primary_serial is int8: pg hands it back as text.
const toRow = <T extends { primary_serial: string | number | null }>(row: T): T & { primary_serial: number | null } =>
  ({ ...row, primary_serial: row.primary_serial === null ? null : Number(row.primary_serial) });

export async function findSecondaryZone(db: Db, zoneId: number): Promise<SecondaryZoneRow | undefined> {
  const row = await db.selectFrom('dns.secondary_zones').select(columns).where('zone_id', '=', zoneId).executeTakeFirst();
  return row && toRow(row);
}

export async function insertSecondaryZone(
  db: Db, values: Pick<SecondaryZoneRow, 'zone_id' | 'primary_address' | 'primary_port' | 'tsig_key_id' | 'primary_serial' | 'refresh' | 'retry' | 'expire' | 'next_check_at' | 'last_success_at' | 'last_transfer_at' | 'created_by' | 'created_at'>,
): Promise<SecondaryZoneRow> {
  const row = await db.insertInto('dns.secondary_zones').values(values).returning(columns).executeTakeFirstOrThrow();
  return toRow(row);
}

export async function deleteSecondaryZone(db: Db, zoneId: number): Promise<SecondaryZoneRow | undefined> {
  const row = await db.deleteFrom('dns.secondary_zones').where('zone_id', '=', zoneId).returning(columns).executeTakeFirst();
  return row && toRow(row);
}

/** Which of `zoneIds` are kept as secondaries (the zone list marks them). */
export async function secondaryZoneIds(db: Db, zoneIds: readonly number[]): Promise<Set<number>> {
  if (zoneIds.length === 0) return new Set();
  const rows = await db.selectFrom('dns.secondary_zones').select('zone_id').where('zone_id', 'in', zoneIds).execute();
  return new Set(rows.map((r) => r.zone_id));
}

/** Whether the zone is a secondary whose primary has not answered for `expire` seconds (it is not served then). */
export async function isExpiredSecondary(db: Db, zoneId: number): Promise<boolean> {
  const row = await db.selectFrom('dns.secondary_zones').select('zone_id').where('zone_id', '=', zoneId).where('expired_at', 'is not', null).executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims up to `limit` live secondary zones due for a check (or only `zoneId`) for this instance until `leaseUntil`:
 * one statement, the rows picked with FOR UPDATE SKIP LOCKED and re-checked, so two instances never hold one zone.
 */
export async function claimSecondaryZones(db: Db, options: { now: Date; leaseUntil: Date; limit: number }): Promise<SecondaryZoneRow[]> {
  const { rows } = await sql<SecondaryZoneRow & { primary_serial: string | null }>`
    update dns.secondary_zones s set lease_until = ${options.leaseUntil}
    where s.zone_id in (
      select d.zone_id from dns.secondary_zones d join dns.zones z on z.id = d.zone_id and z.deleted_at is null
      where d.next_check_at <= ${options.now} and (d.lease_until is null or d.lease_until <= ${options.now})
      order by d.next_check_at limit ${options.limit}
      for update of d skip locked)
      and (s.lease_until is null or s.lease_until <= ${options.now})
    returning ${sql.join(columns.map((c) => sql.ref(`s.${c}`)))}`.execute(db);
  return rows.map(toRow);
}

export async function renewSecondaryLease(db: Db, zoneId: number, leaseUntil: Date): Promise<void> {
  await db.updateTable('dns.secondary_zones').set({ lease_until: leaseUntil }).where('zone_id', '=', zoneId).where('lease_until', 'is not', null).execute();
}

/** The outcome of a check, the lease let go. */
export async function finishSecondaryCheck(
  db: Db, zoneId: number,
  outcome: Partial<Pick<SecondaryZoneRow, 'primary_serial' | 'refresh' | 'retry' | 'expire' | 'last_success_at' | 'last_transfer_at' | 'last_error' | 'expired_at'>>
    & Pick<SecondaryZoneRow, 'next_check_at' | 'last_check_at'>,
  primary: SecondaryPrimary,
): Promise<void> {
  // Only while the zone still has the primary that was asked: an outcome from the one it had before it was
  // re-pointed (PUT /zone/<id>/secondary during the check) says nothing about the new one.
  await db.updateTable('dns.secondary_zones').set({ ...outcome, lease_until: null }).where('zone_id', '=', zoneId)
    .where('primary_address', '=', primary.primary_address).where('primary_port', '=', primary.primary_port)
    .where(sql<boolean>`tsig_key_id is not distinct from ${primary.tsig_key_id}`).execute();
}

/** Which primary a secondary zone is kept from. */
export type SecondaryPrimary = Pick<SecondaryZoneRow, 'primary_address' | 'primary_port' | 'tsig_key_id'>;

export const samePrimary = (a: SecondaryPrimary, b: SecondaryPrimary): boolean =>
  a.primary_address === b.primary_address && a.primary_port === b.primary_port && a.tsig_key_id === b.tsig_key_id;

/** A NOTIFY from the primary: checked by `at` at the latest (by whichever instance gets to it first), never later than planned. */
export async function markSecondaryDue(db: Db, zoneId: number, at: Date): Promise<void> {
  await db.updateTable('dns.secondary_zones').set({ next_check_at: sql<Date>`least(next_check_at, ${at})` }).where('zone_id', '=', zoneId).execute();
}

/** The key that signs the queries to the primary, while it is in force. */
export async function findTsigKeyForPrimary(db: Db, id: number): Promise<{ id: number; name: string; algorithm: string; secret_sealed: string; user_id: number } | undefined> {
  return db.selectFrom('dns.tsig_keys').select(['id', 'name', 'algorithm', 'secret_sealed', 'user_id']).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
}
