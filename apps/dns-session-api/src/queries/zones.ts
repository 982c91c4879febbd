import { sql } from 'kysely';
import type { Db } from './db';
import { containsPattern, countedPage } from './list-page';
import { subtreeGroupIds } from './group-tree';
import type { NameserverRow } from './nameservers';

/** What a client sets on a zone. */
export interface ZoneValues {
  group_id: number;
  name: string;
  description: string;
  mailaddr: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  ttl: number;
  /** Signed by its nameservers (DNSSEC); false when not given. */
  dnssec?: boolean;
  /** Signed with NSEC3 (no salt, no extra iterations) rather than NSEC. */
  nsec3?: boolean;
}

export interface ZoneRow extends ZoneValues {
  dnssec: boolean;
  nsec3: boolean;
  id: number;
  updated_at: Date;
  deleted_at: Date | null;
}

const columns = [
  'id', 'group_id', 'name', 'description', 'mailaddr', 'serial', 'refresh', 'retry', 'expire', 'minimum', 'ttl', 'dnssec', 'nsec3',
  'updated_at', 'deleted_at',
] as const;

// serial is int8: pg hands it back as text.
const toRow = <T extends { serial: string | number }>(row: T): T & { serial: number } => ({ ...row, serial: Number(row.serial) });

export async function findZoneById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<ZoneRow | undefined> {
  let query = db.selectFrom('dns.zones').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toRow(row);
}

export async function insertZone(db: Db, values: ZoneValues, now: Date): Promise<ZoneRow> {
  const row = await db
    .insertInto('dns.zones')
    .values({ ...values, created_at: now, updated_at: now })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRow(row);
}

export async function updateZone(
  db: Db,
  id: number,
  changes: Partial<Omit<ZoneValues, 'name' | 'group_id'>> & { deleted_at?: Date | null },
  now: Date,
): Promise<ZoneRow | undefined> {
  const row = await db
    .updateTable('dns.zones')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
  return row && toRow(row);
}

export const ZONE_SORT_COLUMNS = { id: 'id', zone: 'name', description: 'description', serial: 'serial', last_modified: 'updated_at' } as const;

export interface ZoneListFilter {
  /** These groups, or a group and every group below it (resolved in the same query). */
  groups: number[] | { subtreeOf: number };
  deleted: boolean;
  /** the name or the description contains this (any case) */
  search?: string;
  /** exactly this zone (absolute, lowercase) */
  zone?: string;
  /** the name contains this (any case): NicTool's zone_like */
  zoneLike?: string;
  /** the description contains this (any case): NicTool's description_like */
  descriptionLike?: string;
  sortBy: keyof typeof ZONE_SORT_COLUMNS;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * One page of zones plus the counts meta.pagination needs: in scope (total) and matching the search (filtered).
 * Each row carries the ids of its live nameservers in assignment order, read in the same query.
 */
export async function findZones(
  db: Db,
  f: ZoneListFilter,
): Promise<{ rows: Array<ZoneRow & { nameserverIds: number[] }>; total: number; filtered: number }> {
  if (Array.isArray(f.groups) && f.groups.length === 0) return { rows: [], total: 0, filtered: 0 };
  const scope = db
    .selectFrom('dns.zones')
    .where('group_id', 'in', Array.isArray(f.groups) ? f.groups : subtreeGroupIds(f.groups.subtreeOf))
    .where('deleted_at', f.deleted ? 'is not' : 'is', null);
  // Each filter adds its own condition (values are parameters), so the statement texts stay a small set: one per
  // combination of filters given, which listStatementName bounds.
  let matching = scope;
  if (f.search) {
    const pattern = containsPattern(f.search);
    matching = matching.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  if (f.zone !== undefined) matching = matching.where('name', '=', f.zone);
  if (f.zoneLike) matching = matching.where('name', 'ilike', containsPattern(f.zoneLike));
  if (f.descriptionLike) matching = matching.where('description', 'ilike', containsPattern(f.descriptionLike));
  return countedPage(
    db,
    scope,
    matching,
    matching
      .select(columns)
      .select(
        sql<number[]>`array(select zn.nameserver_id from dns.zone_nameservers zn join dns.nameservers n on n.id = zn.nameserver_id
          where zn.zone_id = dns.zones.id and n.deleted_at is null order by zn.position)`.as('nameserver_ids'),
      )
      .orderBy(ZONE_SORT_COLUMNS[f.sortBy], f.sortDir)
      .orderBy('id', f.sortDir)
      .limit(f.limit)
      .offset(f.offset),
    listedZone,
  );
}

/** A listed row as a ZoneRow with its nameserver ids, built in one object (lists map many rows). */
function listedZone(r: Omit<ZoneRow, 'serial'> & { serial: string | number; nameserver_ids: number[] }): ZoneRow & { nameserverIds: number[] } {
  return {
    id: r.id, group_id: r.group_id, name: r.name, description: r.description, mailaddr: r.mailaddr, serial: Number(r.serial),
    refresh: r.refresh, retry: r.retry, expire: r.expire, minimum: r.minimum, ttl: r.ttl, dnssec: r.dnssec, nsec3: r.nsec3,
    updated_at: r.updated_at, deleted_at: r.deleted_at, nameserverIds: r.nameserver_ids,
  };
}

/** Assigned nameservers per zone, in assignment order (live nameservers only). */
export async function findZoneNameservers(db: Db, zoneIds: number[]): Promise<Map<number, NameserverRow[]>> {
  const out = new Map<number, NameserverRow[]>(zoneIds.map((id) => [id, []]));
  if (zoneIds.length === 0) return out;
  const rows = await db
    .selectFrom('dns.zone_nameservers as zn')
    .innerJoin('dns.nameservers as n', 'n.id', 'zn.nameserver_id')
    .select(['zn.zone_id', 'n.id', 'n.group_id', 'n.name', 'n.address', 'n.address6', 'n.ttl', 'n.description', 'n.export_type', 'n.deleted_at'])
    .where('zn.zone_id', 'in', zoneIds)
    .where('n.deleted_at', 'is', null)
    .orderBy('zn.zone_id')
    .orderBy('zn.position')
    .execute();
  for (const { zone_id, ...ns } of rows) out.get(zone_id)?.push(ns);
  return out;
}

export async function replaceZoneNameservers(db: Db, zoneId: number, nameserverIds: number[]): Promise<void> {
  await db.deleteFrom('dns.zone_nameservers').where('zone_id', '=', zoneId).execute();
  if (nameserverIds.length === 0) return;
  await db
    .insertInto('dns.zone_nameservers')
    .values(nameserverIds.map((nameserver_id, position) => ({ zone_id: zoneId, nameserver_id, position })))
    .execute();
}

/** Whether a live zone of that name exists (checked again by the unique index on insert). */
export async function liveZoneExists(db: Db, name: string): Promise<boolean> {
  const row = await db.selectFrom('dns.zones').select(sql<number>`1`.as('one')).where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

/** Live zones served by a nameserver, locked: their serials move when it changes. */
export async function findZonesOfNameserverForUpdate(db: Db, nameserverId: number): Promise<Array<{ id: number; serial: number }>> {
  const rows = await db
    .selectFrom('dns.zones')
    .select(['id', 'serial'])
    .where('deleted_at', 'is', null)
    .where('id', 'in', (eb) => eb.selectFrom('dns.zone_nameservers').select('zone_id').where('nameserver_id', '=', nameserverId))
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => ({ id: r.id, serial: Number(r.serial) }));
}

/** The live zone of this name (absolute, lowercase), if any. */
export async function findLiveZoneByName(db: Db, name: string): Promise<ZoneRow | undefined> {
  const row = await db.selectFrom('dns.zones').select(columns).where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
  return row && toRow(row);
}

/** Live zones of these groups, by name; optionally only these ids or this name. */
export async function findLiveZonesInGroups(db: Db, groupIds: number[], filter: { ids?: number[] | null; name?: string } = {}): Promise<ZoneRow[]> {
  if (groupIds.length === 0 || (filter.ids && filter.ids.length === 0)) return [];
  let query = db.selectFrom('dns.zones').select(columns).where('group_id', 'in', groupIds).where('deleted_at', 'is', null);
  if (filter.ids) query = query.where('id', 'in', filter.ids);
  if (filter.name) query = query.where('name', '=', filter.name);
  return (await query.orderBy('name').execute()).map(toRow);
}

/** The live zones at these names (a name's ancestors), share-locked: a record write into one waits for this transaction. */
export async function findLiveZonesNamed(db: Db, names: string[], options: { share?: boolean } = {}): Promise<ZoneRow[]> {
  if (names.length === 0) return [];
  let query = db.selectFrom('dns.zones').select(columns).where('name', 'in', names).where('deleted_at', 'is', null);
  if (options.share) query = query.forShare();
  return (await query.orderBy('id').execute()).map(toRow);
}

/** The live zones strictly below `name` (names are lowercase host labels, so a suffix is a label boundary after "."). */
export async function findLiveZonesBelow(db: Db, name: string): Promise<ZoneRow[]> {
  const suffix = name === '.' ? '.' : `.${name}`;
  // reverse(name) like 'reversed suffix%' uses zones_live_reversed_name_idx; "_" and "\" are LIKE's, escaped.
  const pattern = `${[...suffix].reverse().join('').replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db.selectFrom('dns.zones').select(columns)
    .where(sql<boolean>`reverse(name) like ${pattern}`).where('deleted_at', 'is', null)
    .orderBy('name').execute();
  return rows.map(toRow);
}
