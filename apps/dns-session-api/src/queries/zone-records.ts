import { sql } from 'kysely';
import type { Rdata, RecordType } from '../dns';
import type { Db } from './db';
import { containsPattern, countedPage } from './list-page';

/** What a client sets on a record. */
export interface ZoneRecordValues {
  zone_id: number;
  owner: string;
  type: RecordType;
  ttl: number;
  rdata: Rdata;
  description: string;
}

export interface ZoneRecordRow extends ZoneRecordValues {
  id: number;
  deleted_at: Date | null;
}

const columns = ['id', 'zone_id', 'owner', 'type', 'ttl', 'rdata', 'description', 'deleted_at'] as const;
const asRow = (row: { type: string }) => row as ZoneRecordRow;
/** A listed row from the fields it names (the list's rows also carry a count column). */
function listedRecord(r: Omit<ZoneRecordRow, 'type' | 'rdata'> & { type: string; rdata: unknown }): ZoneRecordRow {
  return { id: r.id, zone_id: r.zone_id, owner: r.owner, type: r.type as RecordType, ttl: r.ttl, rdata: r.rdata as Rdata, description: r.description, deleted_at: r.deleted_at };
}

export async function findZoneRecordById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<ZoneRecordRow | undefined> {
  let query = db.selectFrom('dns.zone_records').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && asRow(row);
}

/** Every live record of a zone (export, whole-zone checks). */
export async function findLiveZoneRecords(db: Db, zoneId: number): Promise<ZoneRecordRow[]> {
  const rows = await db.selectFrom('dns.zone_records').select(columns).where('zone_id', '=', zoneId).where('deleted_at', 'is', null).execute();
  return rows.map(asRow);
}

/** The live records of a zone at these owner names (an incremental publish: only the RRsets that changed). */
export async function findLiveRecordsAt(db: Db, zoneId: number, owners: string[]): Promise<ZoneRecordRow[]> {
  if (owners.length === 0) return [];
  const rows = await db.selectFrom('dns.zone_records').select(columns)
    .where('zone_id', '=', zoneId).where('deleted_at', 'is', null).where('owner', 'in', owners).execute();
  return rows.map(asRow);
}

/**
 * The live records a change at these names can interact with under the zone rules: records at the names
 * (RRsets, CNAME exclusivity) and records whose MX/NS/SRV target is one of them (target rules).
 */
export async function findRecordsNear(db: Db, zoneId: number, names: string[]): Promise<ZoneRecordRow[]> {
  if (names.length === 0) return [];
  // Two index lookups (owner; MX/NS/SRV target via zone_records_target_idx), not a scan of the zone.
  const live = db.selectFrom('dns.zone_records').select(columns).where('zone_id', '=', zoneId).where('deleted_at', 'is', null);
  const rows = await live
    .where('owner', 'in', names)
    .union(
      live
        .where('type', 'in', ['MX', 'NS', 'SRV'])
        .where(sql<string>`coalesce(rdata->>'exchange', rdata->>'dname', rdata->>'target')`, 'in', names),
    )
    .execute();
  return rows.map(asRow);
}

const rowValues = (v: ZoneRecordValues, now: Date) => ({
  zone_id: v.zone_id, owner: v.owner, type: v.type, ttl: v.ttl, rdata: JSON.stringify(v.rdata), description: v.description,
  created_at: now, updated_at: now,
});

export async function insertZoneRecord(db: Db, values: ZoneRecordValues, now: Date): Promise<ZoneRecordRow> {
  const row = await db.insertInto('dns.zone_records').values(rowValues(values, now)).returning(columns).executeTakeFirstOrThrow();
  return asRow(row);
}

/**
 * Bulk insert for imports: one statement per chunk with one array parameter per column (unnest), so a
 * 50k-record zone is a handful of round trips and parameter counts stay small.
 */
/** Records of one zone, inserted in chunks; each chunk's columns are built only when it is sent (a 373k-record
 * import must not hold a second copy of every record). */
export async function insertZoneRecords(
  db: Db,
  zoneId: number,
  records: ReadonlyArray<Pick<ZoneRecordValues, 'owner' | 'type' | 'ttl' | 'rdata'> & { description?: string }>,
  now: Date,
): Promise<void> {
  // 5,000 rows per statement: few round trips, and serializing one chunk's arrays stays a few milliseconds
  // of event-loop time (a 200k-record import must not hold other requests up).
  const CHUNK = 5000;
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK);
    await sql`
      insert into dns.zone_records (zone_id, owner, type, ttl, rdata, description, created_at, updated_at)
      select ${zoneId}::int, u.owner, u.type, u.ttl, u.rdata::jsonb, u.description, ${now}, ${now}
      from unnest(
        ${chunk.map((v) => v.owner)}::text[], ${chunk.map((v) => v.type)}::text[], ${chunk.map((v) => v.ttl)}::int[],
        ${chunk.map((v) => JSON.stringify(v.rdata))}::text[], ${chunk.map((v) => v.description ?? '')}::text[]
      ) as u(owner, type, ttl, rdata, description)`.execute(db);
  }
}

/** Deletes the zone's records equal (owner, type, rdata) to any of `records`; returns how many went. */
export async function deleteZoneRecordsLike(db: Db, zoneId: number, records: ReadonlyArray<Pick<ZoneRecordValues, 'owner' | 'type' | 'rdata'>>): Promise<number> {
  if (records.length === 0) return 0;
  const result = await sql`
    delete from dns.zone_records r
    using unnest(${records.map((v) => v.owner)}::text[], ${records.map((v) => v.type)}::text[], ${records.map((v) => JSON.stringify(v.rdata))}::text[])
      as u(owner, type, rdata)
    where r.zone_id = ${zoneId} and r.owner = u.owner and r.type = u.type and r.rdata = u.rdata::jsonb`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export async function updateZoneRecord(
  db: Db,
  id: number,
  changes: Partial<Omit<ZoneRecordValues, 'zone_id'>> & { deleted_at?: Date | null },
  now: Date,
): Promise<ZoneRecordRow | undefined> {
  const { rdata, ...rest } = changes;
  const row = await db
    .updateTable('dns.zone_records')
    .set({ ...rest, ...(rdata ? { rdata: JSON.stringify(rdata) } : {}), updated_at: now })
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
  return row && asRow(row);
}

export const RECORD_SORT_COLUMNS = { id: 'id', owner: 'owner', type: 'type', ttl: 'ttl' } as const;

export interface RecordListFilter {
  zoneId: number;
  deleted: boolean;
  search?: string;
  type?: string;
  sortBy: keyof typeof RECORD_SORT_COLUMNS;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export async function findZoneRecords(db: Db, f: RecordListFilter): Promise<{ rows: ZoneRecordRow[]; total: number; filtered: number }> {
  const scope = db
    .selectFrom('dns.zone_records')
    .where('zone_id', '=', f.zoneId)
    .where('deleted_at', f.deleted ? 'is not' : 'is', null);
  const pattern = f.search ? containsPattern(f.search) : undefined;
  let matching = f.type ? scope.where('type', '=', f.type) : scope;
  if (pattern) {
    matching = matching.where((eb) =>
      eb.or([eb('owner', 'ilike', pattern), eb(sql<string>`rdata::text`, 'ilike', pattern), eb('description', 'ilike', pattern)]),
    );
  }
  return countedPage(
    db,
    scope,
    matching,
    matching
      .select(columns)
      .orderBy(RECORD_SORT_COLUMNS[f.sortBy], f.sortDir)
      .orderBy('id', f.sortDir)
      .limit(f.limit)
      .offset(f.offset),
    listedRecord,
  );
}
