// Per-group quotas (issue 27): any user may create zones and records, so one group could otherwise fill the
// database (a 9.9 MB import made 373,000 records). quotas.yml sets the limits; going over one is a 403 that names
// it. Zone counts are taken under a transaction-scoped advisory lock per group (a row lock on the group would
// deadlock with a nameserver's deletion, which locks in the other order), record counts under the zone's row
// lock (lockZoneForChange), so two requests at once cannot both take the last place.
import { sql } from 'kysely';
import type { Deps } from '../../deps';
import { ApiError } from '../../errors';
import type { Db } from '../../queries/db';

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
  if (Number(n) + adding > limit) {
    throw new ApiError('forbidden', `The zone would exceed its limit of ${limit} records (quotas.yml records_per_zone)`);
  }
}
