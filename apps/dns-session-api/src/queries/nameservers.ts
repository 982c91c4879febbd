import type { Db } from './db';

import type { NameserverExportType } from '../dns/nameserver-exports';

/** What a client sets on a nameserver. */
export interface NameserverValues {
  group_id: number;
  name: string;
  address: string | null;
  address6: string | null;
  ttl: number;
  description: string;
  export_type: NameserverExportType;
}

export interface NameserverRow extends NameserverValues {
  id: number;
  deleted_at: Date | null;
}

const columns = ['id', 'group_id', 'name', 'address', 'address6', 'ttl', 'description', 'export_type', 'deleted_at'] as const;

export async function findNameserverById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<NameserverRow | undefined> {
  let query = db.selectFrom('dns.nameservers').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Nameservers of these groups, live or deleted; `name` (absolute, lowercase) narrows to that name. */
export async function findNameservers(db: Db, filter: { groupIds: number[]; deleted: boolean; name?: string }): Promise<NameserverRow[]> {
  if (filter.groupIds.length === 0) return [];
  let query = db
    .selectFrom('dns.nameservers')
    .select(columns)
    .where('group_id', 'in', filter.groupIds)
    .where('deleted_at', filter.deleted ? 'is not' : 'is', null);
  if (filter.name !== undefined) query = query.where('name', '=', filter.name);
  return query.orderBy('name').execute();
}

/** Live nameservers by name (names are unique among live ones). */
export async function findLiveNameserversByName(db: Db, names: string[], options: { share?: boolean } = {}): Promise<NameserverRow[]> {
  if (names.length === 0) return [];
  let query = db.selectFrom('dns.nameservers').select(columns).where('name', 'in', names).where('deleted_at', 'is', null).orderBy('id');
  if (options.share) query = query.forShare();
  return query.execute();
}

/** Live nameservers by id; `share` locks them against a concurrent delete until the transaction ends. */
export async function findLiveNameserversByIds(db: Db, ids: number[], options: { share?: boolean } = {}): Promise<NameserverRow[]> {
  if (ids.length === 0) return [];
  let query = db.selectFrom('dns.nameservers').select(columns).where('id', 'in', ids).where('deleted_at', 'is', null).orderBy('id');
  if (options.share) query = query.forShare();
  return query.execute();
}

export async function insertNameserver(db: Db, values: NameserverValues, now: Date): Promise<NameserverRow> {
  return db
    .insertInto('dns.nameservers')
    .values({ ...values, created_at: now, updated_at: now })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

export async function updateNameserver(
  db: Db,
  id: number,
  changes: Partial<NameserverValues> & { deleted_at?: Date | null },
  now: Date,
): Promise<NameserverRow | undefined> {
  return db
    .updateTable('dns.nameservers')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

/** Live zones a nameserver serves (a nameserver in use is not deleted). */
export async function countLiveZonesOfNameserver(db: Db, nameserverId: number): Promise<number> {
  const row = await db
    .selectFrom('dns.zone_nameservers as zn')
    .innerJoin('dns.zones as z', 'z.id', 'zn.zone_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('zn.nameserver_id', '=', nameserverId)
    .where('z.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Live nameservers named by the zone's name or a name below it (those whose addresses a zone file holds as glue). */
export async function findLiveNameserversInZone(db: Db, zone: string): Promise<NameserverRow[]> {
  // A suffix comparison, not LIKE: zone names may hold "_", which LIKE reads as a wildcard.
  return db.selectFrom('dns.nameservers').select(columns).where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('name', '=', zone), eb(eb.fn('right', ['name', eb.val(zone.length + 1)]), '=', `.${zone}`)]))
    .orderBy('id').execute();
}

export async function countLiveNameservers(db: Db): Promise<number> {
  const { n } = await db.selectFrom('dns.nameservers').select((eb) => eb.fn.countAll<string>().as('n')).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  return Number(n);
}
