// What a nameserver should serve for a zone right now: the zone as exported (SOA, NS and glue from the zone
// row, the live records), or nothing when the zone is deleted or no longer assigned to that nameserver. For an
// incremental publish, only the records at some owners (those of the changed RRsets, the apex and the
// nameservers' names, whose NS and glue records derive from the zone row).
import { normalizeName, type ExportZone } from '../dns';
import type { Db } from '../queries/db';
import { findLiveRecordsAt, findLiveZoneRecords } from '../queries/zone-records';
import { findZoneById, findZoneNameservers } from '../queries/zones';
import { isExpiredSecondary } from '../queries/secondary-zones';
import { toZoneRecord } from '../services/zones/zone-rules';

export interface ZoneSnapshot {
  name: string;
  /** undefined: the nameserver must not serve the zone (deleted, or unassigned). */
  zone: ExportZone | undefined;
  /** The zone is to be signed (DNSSEC), with NSEC3 or NSEC. */
  dnssec: boolean;
  nsec3: boolean;
  serial: number;
}

/** `owners`: read only the records at these names (plus the apex and the nameservers' names); all when absent. */
export async function zoneSnapshot(db: Db, zoneId: number, nameserverId: number, owners?: string[]): Promise<ZoneSnapshot | undefined> {
  const row = await findZoneById(db, zoneId);
  if (!row) return undefined;
  const serial = Number(row.serial);
  const nameservers = (await findZoneNameservers(db, [zoneId])).get(zoneId) ?? [];
  // An expired secondary zone (issue 44) is withdrawn as a deleted one is: a secondary ceases serving it (RFC 1034 §4.3.5).
  const withdrawn = row.deleted_at !== null || (await isExpiredSecondary(db, zoneId));
  if (withdrawn || !nameservers.some((ns) => ns.id === nameserverId)) return { name: row.name, zone: undefined, dnssec: false, nsec3: false, serial };
  const rows = owners
    ? await findLiveRecordsAt(db, zoneId, [...new Set([...owners, normalizeName(row.name), ...nameservers.map((ns) => normalizeName(ns.name))])])
    : await findLiveZoneRecords(db, zoneId);
  return {
    name: row.name,
    dnssec: row.dnssec,
    nsec3: row.nsec3,
    serial,
    zone: {
      name: row.name,
      ttl: row.ttl,
      soa: { rname: row.mailaddr, serial: row.serial, refresh: row.refresh, retry: row.retry, expire: row.expire, minimum: row.minimum },
      nameservers,
      records: rows.map(toZoneRecord),
    },
  };
}
