// Zone rules applied to one change (a record added, changed, removed or restored) inside the change's
// transaction, with the zone row locked: the records the change can interact with are loaded, the zone
// checker runs on them before and after the change, and any violation the change introduces is a 400.
import { checkZone, zoneFileRecords, type ZoneError, type ZoneRecord } from '../../dns';
import type { Db } from '../../queries/db';
import type { NameserverRow } from '../../queries/nameservers';
import { findRecordsNear, type ZoneRecordRow } from '../../queries/zone-records';
import type { ZoneRow } from '../../queries/zones';
import { invalidInput } from './dns-errors';

export function toZoneRecord(row: ZoneRecordRow): ZoneRecord {
  return { owner: row.owner, type: row.type, ttl: row.ttl, rdata: row.rdata };
}

const TARGETS = ['exchange', 'dname', 'target'];

function namesOf(record: ZoneRecord): string[] {
  return [record.owner, ...TARGETS.map((f) => record.rdata[f]).filter((v): v is string => typeof v === 'string')];
}

const errorKey = (e: ZoneError) => `${e.rule} ${e.owner} ${e.type} ${e.field}`;

export interface RecordChange {
  /** the stored record being replaced or removed */
  removeId?: number;
  removed?: ZoneRecord;
  /** the record as it will be stored */
  add?: ZoneRecord;
  /** records of the same RRset whose TTL moves with it (the TTL belongs to the set) */
  retime?: { ids: number[]; ttl: number };
}

/** Throws 400 listing every zone rule the change breaks (rules already broken before it are not its fault). */
export async function checkRecordChange(
  trx: Db, zone: ZoneRow, nameservers: readonly NameserverRow[], change: RecordChange,
): Promise<void> {
  const names = [...new Set([...(change.add ? namesOf(change.add) : []), ...(change.removed ? namesOf(change.removed) : [])])];
  const near = await findRecordsNear(trx, zone.id, names);
  const soa = { rname: zone.mailaddr, serial: 0, refresh: 0, retry: 0, expire: 0, minimum: 0 };
  const build = (records: ZoneRecord[]) => zoneFileRecords({ name: zone.name, ttl: zone.ttl, soa, nameservers, records });
  const beforeRecords = near.map(toZoneRecord);
  const retimed = new Set(change.retime?.ids ?? []);
  const afterRecords = [
    ...near.filter((r) => r.id !== change.removeId).map((r) => (retimed.has(r.id) ? { ...toZoneRecord(r), ttl: change.retime?.ttl ?? r.ttl } : toZoneRecord(r))),
    ...(change.add ? [change.add] : []),
  ];
  const known = new Set(checkZone(zone.name, build(beforeRecords)).map(errorKey));
  const introduced = checkZone(zone.name, build(afterRecords)).filter((e) => !known.has(errorKey(e)));
  if (introduced.length) throw invalidInput('zone record', introduced);
}

/** The TTL of an existing RRset at owner/type, if there is one: a record added to it takes that TTL. */
export async function rrsetTtl(trx: Db, zone: ZoneRow, owner: string, type: string, exceptId?: number): Promise<number | undefined> {
  const near = await findRecordsNear(trx, zone.id, [owner]);
  return near.find((r) => r.owner === owner && r.type === type && r.id !== exceptId)?.ttl;
}

/**
 * Throws 400 listing every zone rule a change of the zone's nameservers breaks (their NS records and glue are
 * derived): a name server inside the zone without an address, a CNAME at a name server's name, and so on.
 */
export async function checkNameserverChange(
  trx: Db, zone: ZoneRow, before: readonly NameserverRow[], after: readonly NameserverRow[],
): Promise<void> {
  const names = [...new Set([zone.name, ...before.map((n) => n.name), ...after.map((n) => n.name)])];
  const near = (await findRecordsNear(trx, zone.id, names)).map(toZoneRecord);
  const soa = { rname: zone.mailaddr, serial: 0, refresh: 0, retry: 0, expire: 0, minimum: 0 };
  const build = (nameservers: readonly NameserverRow[]) => zoneFileRecords({ name: zone.name, ttl: zone.ttl, soa, nameservers, records: near });
  const known = new Set(checkZone(zone.name, build(before)).map(errorKey));
  const introduced = checkZone(zone.name, build(after)).filter((e) => !known.has(errorKey(e)));
  if (introduced.length) throw invalidInput('zone', introduced.map((e) => ({ ...e, field: 'nameservers' })));
}

