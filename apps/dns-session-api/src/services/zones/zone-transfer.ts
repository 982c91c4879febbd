// What the DNS listener (issue 44) needs from the zones: the zone Keyzone holds for a name (the closest enclosing
// live zone), whether a peer may transfer it, and a consistent snapshot of it (SOA and every record as served).
import { createClientAddressResolver, normalizeAddress } from '@keyzone/config';
import type { Deps } from '../../deps';
import { normalizeName, zoneFileRecords, type ZoneRecord } from '../../dns';
import type { Db } from '../../queries/db';
import { findLiveZoneRecords } from '../../queries/zone-records';
import { isInSubtree } from '../../queries/groups';
import { findLiveZoneByName, findZoneNameservers, type ZoneRow } from '../../queries/zones';
import { inScope } from '../access/api-tokens';
import type { TsigKeyInUse } from '../access/tsig-keys';
import { toZoneRecord } from './zone-rules';

/** The closest live zone at or above `name` (absolute, with the trailing dot), or undefined. */
export async function zoneHolding(db: Deps['db'], name: string): Promise<ZoneRow | undefined> {
  const labels = normalizeName(name.endsWith('.') ? name : `${name}.`).split('.').filter(Boolean);
  for (let i = 0; i < labels.length && i < 128; i++) {
    const zone = await findLiveZoneByName(db, `${labels.slice(i).join('.')}.`);
    if (zone) return zone;
  }
  return undefined;
}

/** Whether the key's owner may manage the zone now and the key's scope covers it. */
export async function keyReachesZone(db: Deps['db'], key: TsigKeyInUse, zone: ZoneRow): Promise<boolean> {
  if (!inScope.zone(key.scope, zone.id)) return false;
  return key.caller.isAdmin || isInSubtree(db, key.caller.groupId, zone.group_id);
}

/** A transfer is allowed to a key that may transfer and reaches the zone, or without a key to a listed address. */
export async function mayTransfer(deps: Pick<Deps, 'db' | 'config'>, zone: ZoneRow, key: TsigKeyInUse | undefined, address: string): Promise<boolean> {
  if (key) return key.scope.allowTransfer && (await keyReachesZone(deps.db, key, zone));
  const peers = deps.config.dns.transferPeers[zone.name];
  return peers !== undefined && createClientAddressResolver({ trustedProxies: peers }).isTrusted(normalizeAddress(address));
}

export interface ZoneSnapshot {
  zone: ZoneRow;
  soa: { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };
  records: ZoneRecord[];
}

/** The zone as served (apex NS and glue derived from its nameservers), read in one repeatable-read transaction. */
export async function zoneSnapshot(db: Deps['db'], zoneId: number): Promise<ZoneSnapshot | undefined> {
  return db.transaction().setIsolationLevel('repeatable read').execute((trx) => readZoneSnapshot(trx, zoneId));
}

/** The zone as served, read in the caller's transaction (repeatable read, for a consistent view). */
export async function readZoneSnapshot(trx: Db, zoneId: number): Promise<ZoneSnapshot | undefined> {
  const zone = await trx.selectFrom('dns.zones').select('name').where('id', '=', zoneId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!zone) return undefined;
  const row = await findLiveZoneByName(trx, zone.name);
  if (!row) return undefined;
  const nameservers = (await findZoneNameservers(trx, [row.id])).get(row.id) ?? [];
  const stored = (await findLiveZoneRecords(trx, row.id)).map(toZoneRecord);
  const soaFields = { rname: row.mailaddr, serial: row.serial, refresh: row.refresh, retry: row.retry, expire: row.expire, minimum: row.minimum };
  const records = zoneFileRecords({ name: row.name, ttl: row.ttl, soa: soaFields, nameservers, records: stored });
  const firstNs = records.find((r) => r.type === 'NS' && r.owner === row.name);
  const mname = nameservers[0] ? normalizeName(nameservers[0].name) : firstNs ? String(firstNs.rdata.dname) : row.name;
  return { zone: row, soa: { mname, ...soaFields }, records };
}
