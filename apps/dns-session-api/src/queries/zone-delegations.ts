import type { Db } from './db';

export interface ZoneDelegationRow {
  id: number;
  zone_id: number;
  name: string;
  group_id: number;
  allowed_by: number;
  created_at: Date;
  deleted_by: number | null;
  deleted_at: Date | null;
}

const columns = ['id', 'zone_id', 'name', 'group_id', 'allowed_by', 'created_at', 'deleted_by', 'deleted_at'] as const;

export async function insertZoneDelegation(
  db: Db, values: { zone_id: number; name: string; group_id: number; allowed_by: number }, now: Date,
): Promise<ZoneDelegationRow> {
  return db.insertInto('dns.zone_delegations').values({ ...values, created_at: now }).returning(columns).executeTakeFirstOrThrow();
}

/** A zone's delegations, live or (deleted) withdrawn, oldest first. */
export async function findZoneDelegations(db: Db, zoneId: number, options: { deleted: boolean }): Promise<ZoneDelegationRow[]> {
  return db.selectFrom('dns.zone_delegations').select(columns).where('zone_id', '=', zoneId)
    .where('deleted_at', options.deleted ? 'is not' : 'is', null).orderBy('id').execute();
}

export async function findZoneDelegationById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<ZoneDelegationRow | undefined> {
  let query = db.selectFrom('dns.zone_delegations').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The zones (of those given) that allow a zone named `name` in group `groupId`. */
export async function findDelegatingZoneIds(db: Db, zoneIds: number[], name: string, groupId: number): Promise<Set<number>> {
  if (zoneIds.length === 0) return new Set();
  const rows = await db.selectFrom('dns.zone_delegations').select('zone_id')
    .where('zone_id', 'in', zoneIds).where('name', '=', name).where('group_id', '=', groupId).where('deleted_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.zone_id));
}

export async function withdrawZoneDelegation(db: Db, id: number, by: number, now: Date): Promise<ZoneDelegationRow | undefined> {
  return db.updateTable('dns.zone_delegations').set({ deleted_by: by, deleted_at: now })
    .where('id', '=', id).where('deleted_at', 'is', null).returning(columns).executeTakeFirst();
}
