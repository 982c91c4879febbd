// A secondary zone's records and SOA follow its outside primary (issue 44): every path that writes them (the session
// API, the PowerDNS-compatible API, RFC 2136 UPDATE) passes lockZoneForChange, which asks here once the zone's row is
// locked; the refresher writes them itself. Converting the zone to a primary (DELETE /zone/<id>/secondary) lifts it.
import { ApiError } from '../../../errors';
import type { Db } from '../../../queries/db';
import { findSecondaryZone } from '../../../queries/secondary-zones';
import type { ZoneRow } from '../../../queries/zones';

export function secondaryZoneRefusal(zone: Pick<ZoneRow, 'id' | 'name'>, primary: string): ApiError {
  return new ApiError('conflict', `${zone.name} is a secondary of ${primary}: its records follow the primary. Change them there, or make it a ` +
    `primary zone first (DELETE /zone/${zone.id}/secondary)`, { reason: 'secondary_zone' });
}

/** Throws 409 (reason `secondary_zone`) when the zone is kept as a secondary of an outside primary. */
export async function assertNotSecondary(db: Db, zone: Pick<ZoneRow, 'id' | 'name'>): Promise<void> {
  const secondary = await findSecondaryZone(db, zone.id);
  if (secondary) throw secondaryZoneRefusal(zone, secondary.primary_address);
}
