// Per-group quotas (issue 27): any user may create zones and records, so one group could otherwise fill the
// database (a 9.9 MB import made 373,000 records). quotas.yml sets the limits; going over one is a 403 that names
// it. Zone counts are taken under a transaction-scoped advisory lock per group (a row lock on the group would
// deadlock with a nameserver's deletion, which locks in the other order), record counts under the zone's row
// lock (lockZoneForChange), so two requests at once cannot both take the last place.
import { sql } from 'kysely';
import type { Deps } from '../../deps';
import { normalizeName, type ZoneRecord } from '../../dns';
import { ApiError } from '../../errors';
import type { Db } from '../../queries/db';
import { countLiveNameservers, findLiveNameserversInZone } from '../../queries/nameservers';

/** pg_advisory_xact_lock(int4, int4) class of the zones-per-group count ("kzq"). */
const ZONE_QUOTA_LOCK = 0x6b7a71;

export async function assertZoneQuota(trx: Db, quotas: Deps['config']['quotas'], groupId: number): Promise<void> {
  const limit = quotas.zonesPerGroup;
  if (limit <= 0) return;
  await sql`select pg_advisory_xact_lock(${ZONE_QUOTA_LOCK}, ${groupId})`.execute(trx);
  const { n } = await trx.selectFrom('dns.zones').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('group_id', '=', groupId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  if (Number(n) >= limit) {
    throw new ApiError('forbidden', `The group has reached its limit of ${limit} zones (quotas.yml zones_per_group)`);
  }
}

/** `adding` records into a zone the caller has locked. */
export async function assertRecordQuota(trx: Db, quotas: Deps['config']['quotas'], zoneId: number, adding: number): Promise<void> {
  const limit = quotas.recordsPerZone;
  if (limit <= 0) return;
  const { n } = await trx.selectFrom('dns.zone_records').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('zone_id', '=', zoneId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  if (Number(n) + adding > limit) throw recordQuotaExceeded(limit);
}

const recordQuotaExceeded = (limit: number, detail = '') =>
  new ApiError('forbidden', `The zone would exceed its limit of ${limit} records (quotas.yml records_per_zone)${detail}`);

/**
 * The record quota of a zone file import, taken record by record as the file is parsed: it throws the 403 at the
 * first record that surely puts the new zone over records_per_zone, so a file over the quota is not read (nor
 * stored) to its end. The import drops records its nameservers give again (apex NS records that become
 * assignments, glue equal to an in-zone nameserver's address), so those count only once they cannot be such:
 * apex NS records past the number of live nameservers, and A/AAAA records other than an in-zone nameserver's
 * address. The exact count is checked after the drop (assertRecordQuota).
 */
export async function importRecordQuota(trx: Db, quotas: Deps['config']['quotas'], zoneName: string): Promise<(record: ZoneRecord & { line: number }) => void> {
  const limit = quotas.recordsPerZone;
  if (limit <= 0) return () => undefined;
  const zone = normalizeName(zoneName);
  const [nameservers, inZone] = await Promise.all([countLiveNameservers(trx), findLiveNameserversInZone(trx, zone)]);
  const glue = new Set(inZone.flatMap((ns) => [
    ...(ns.address ? [`${ns.name} A ${ns.address}`] : []),
    ...(ns.address6 ? [`${ns.name} AAAA ${ns.address6}`] : []),
  ]));
  let counted = 0;
  let apexNs = 0;
  return (record) => {
    if (record.type === 'NS' && record.owner === zone) {
      if (++apexNs <= nameservers) return;
    } else if ((record.type === 'A' || record.type === 'AAAA') && glue.has(`${record.owner} ${record.type} ${String(record.rdata.address)}`)) {
      return;
    }
    if (++counted > limit) throw recordQuotaExceeded(limit, `; the import stopped at line ${record.line}`);
  };
}
