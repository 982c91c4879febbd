// Zones as RRsets for the PowerDNS-compatible API (issue 32): the zones and RRsets an API token may see, and a PATCH
// of RRsets (REPLACE / DELETE) applied as ordinary Keyzone changes: one transaction with the zone row locked, each
// record through the zone rules, one serial bump, a history entry per record naming the token, publish jobs queued.
import type { Deps } from '../../deps';
import {
  isInZone, isRecordType, normalizeName, unsupportedTypeReason, rdataFromBind, rdataKey, rrsetsOf, validateRecord, type PowerDnsRRset, type ZoneRecord,
} from '../../dns';
import { tokenize } from '../../dns/bind/tokenize';
import { ApiError } from '../../errors';
import type { Db } from '../../queries/db';
import { findSubtreeGroupIds } from '../../queries/group-tree';
import { findLiveZoneRecords, findRecordsNear, insertZoneRecord, updateZoneRecord, type ZoneRecordRow } from '../../queries/zone-records';
import { findLiveZoneByName, findLiveZonesInGroups, findZoneNameservers, type ZoneRow } from '../../queries/zones';
import { serializeZoneRecord } from '../../serialize-zones';
import { inScope, type TokenCaller } from '../access/api-tokens';
import { assertGroupAccess } from '../directory/permissions';
import { assertRecordQuota } from './quotas';
import { checkRecordChange, toZoneRecord } from './zone-rules';
import { bumpSerial, lockZoneForChange } from './zones';
import { assertOutsideChildZones } from './zone-tenancy';

export interface RrsetChange {
  name: string;
  type: string;
  ttl?: number;
  changetype: 'REPLACE' | 'DELETE';
  records?: Array<{ content: string; disabled?: boolean }>;
}

/** A PowerDNS API error: the status and the `{"error": …}` message it answers with. */
export class PowerDnsApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const unprocessable = (message: string) => new PowerDnsApiError(422, message);

/** The zones a token may see: its owner's (their group and below), narrowed to the token's zones. */
export async function tokenZones(deps: Pick<Deps, 'db'>, tc: TokenCaller, name?: string): Promise<ZoneRow[]> {
  const groups = await findSubtreeGroupIds(deps.db, tc.caller.groupId);
  return findLiveZonesInGroups(deps.db, groups, { ids: tc.scope.zoneIds, name });
}

/** The zone named in the path, if the token may use it (404 as PowerDNS answers an unknown zone, else 403). */
export async function tokenZone(deps: Pick<Deps, 'db'>, tc: TokenCaller, name: string): Promise<ZoneRow> {
  const zone = await findLiveZoneByName(deps.db, normalizeName(name));
  if (!zone) throw new PowerDnsApiError(404, 'Could not find domain');
  try {
    await assertGroupAccess(deps.db, tc.caller, zone.group_id, 'zone');
  } catch {
    throw new PowerDnsApiError(403, `This token's owner may not manage ${zone.name}`);
  }
  if (!inScope.zone(tc.scope, zone.id)) throw new PowerDnsApiError(403, `This token is not for ${zone.name}`);
  return zone;
}

/** The zone's RRsets as served (SOA, NS and glue included), narrowed to the token's names and types. */
export async function tokenRrsets(deps: Pick<Deps, 'db'>, tc: TokenCaller, zone: ZoneRow): Promise<PowerDnsRRset[]> {
  const nameservers = (await findZoneNameservers(deps.db, [zone.id])).get(zone.id) ?? [];
  const records = (await findLiveZoneRecords(deps.db, zone.id)).map(toZoneRecord);
  const sets = await rrsetsOf({
    name: zone.name, ttl: zone.ttl, nameservers, records,
    soa: { rname: zone.mailaddr, serial: zone.serial, refresh: zone.refresh, retry: zone.retry, expire: zone.expire, minimum: zone.minimum },
  });
  return sets.filter((s) => inScope.name(tc.scope, s.name) && inScope.type(tc.scope, s.type));
}

/** A record's content in presentation format (names absolute, TXT quoted) as a checked record. */
export function parseContent(zone: ZoneRow, owner: string, type: string, ttl: number, content: string): ZoneRecord {
  const { entries, errors } = tokenize(content);
  if (errors.length > 0 || entries.length !== 1) throw unprocessable(`Record ${owner}/${type} '${content}': not one record's data`);
  let rdata;
  try {
    rdata = rdataFromBind(type as never, entries[0]!.tokens, zone.name);
  } catch (err) {
    throw unprocessable(`Record ${owner}/${type} '${content}': ${(err as Error).message}`);
  }
  const checked = validateRecord(zone.name, { owner, type, ttl, rdata });
  if (!checked.record) throw unprocessable(`Record ${owner}/${type} '${content}': ${checked.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  return checked.record;
}

interface Planned {
  deletes: ZoneRecordRow[];
  retimes: Array<{ row: ZoneRecordRow; ttl: number }>;
  inserts: ZoneRecord[];
}

/** What one RRset change means for the stored records (checked against the token's scope and the zone). */
async function plan(trx: Db, tc: TokenCaller, zone: ZoneRow, change: RrsetChange): Promise<Planned> {
  const owner = normalizeName(String(change.name ?? ''));
  const type = String(change.type ?? '').toUpperCase();
  if (!isInZone(owner, zone.name)) throw unprocessable(`Name '${change.name}' is out of zone '${zone.name}'`);
  if (type === 'SOA') throw unprocessable('The SOA is kept by Keyzone: change the zone\'s settings instead');
  if (type === 'NS' && owner === zone.name) throw unprocessable('The apex NS RRset comes from the zone\'s nameservers in Keyzone');
  if (!isRecordType(type)) throw unprocessable(`RRset ${owner} IN ${type}: ${unsupportedTypeReason(type)}`);
  if (!inScope.name(tc.scope, owner) || !inScope.type(tc.scope, type)) {
    throw new PowerDnsApiError(403, `This token may not change ${owner} ${type}`);
  }
  const current = (await findRecordsNear(trx, zone.id, [owner])).filter((r) => r.owner === owner && r.type === type);
  const records = change.records ?? [];
  if (change.changetype === 'DELETE' || records.length === 0) return { deletes: current, retimes: [], inserts: [] };
  if (typeof change.ttl !== 'number' || !Number.isInteger(change.ttl) || change.ttl < 0) throw unprocessable(`RRset ${owner} IN ${type}: a REPLACE needs a ttl`);
  if (records.some((r) => r.disabled === true)) throw unprocessable('Disabled records are not kept by Keyzone: leave them out of the RRset');
  const wanted = new Map<string, ZoneRecord>();
  for (const r of records) {
    const record = parseContent(zone, owner, type, change.ttl, String(r.content ?? ''));
    wanted.set(rdataKey(record), record);
  }
  const have = new Map(current.map((row) => [rdataKey(toZoneRecord(row)), row]));
  return {
    deletes: current.filter((row) => !wanted.has(rdataKey(toZoneRecord(row)))),
    retimes: [...have.entries()].filter(([key, row]) => wanted.has(key) && row.ttl !== change.ttl).map(([, row]) => ({ row, ttl: change.ttl! })),
    inserts: [...wanted.entries()].filter(([key]) => !have.has(key)).map(([, record]) => record),
  };
}

/** PATCH /api/v1/servers/localhost/zones/<zone>: every change or none. Returns the zone and whether anything changed. */
export async function patchRrsets(deps: Deps, tc: TokenCaller, zoneName: string, changes: RrsetChange[]): Promise<{ zoneId: number; changed: boolean }> {
  const seen = new Set<string>();
  for (const c of changes) {
    if (c.changetype !== 'REPLACE' && c.changetype !== 'DELETE') throw unprocessable(`changetype must be REPLACE or DELETE, not ${String(c.changetype)}`);
    const key = `${normalizeName(String(c.name ?? ''))} ${String(c.type ?? '').toUpperCase()}`;
    if (seen.has(key)) throw unprocessable(`Duplicate RRset ${key} in the request`);
    seen.add(key);
  }
  const found = await tokenZone(deps, tc, zoneName);
  return changeRrsets(deps, tc, found.id, async () => changes);
}

/**
 * The transaction of a PATCH, with the changes computed inside it once the zone's row is locked: an RFC 2136
 * UPDATE (dns-server/update.ts) checks its prerequisites and reads the RRsets it changes there, so the whole
 * message is atomic.
 */
export async function changeRrsets(
  deps: Deps, tc: TokenCaller, zoneId: number, changesOf: (trx: Db, zone: ZoneRow) => Promise<RrsetChange[]>,
): Promise<{ zoneId: number; changed: boolean }> {
  const { caller } = tc;
  return deps.db.transaction().execute(async (trx) => {
    const zone = await lockZoneForChange(trx, caller, zoneId);
    const changes = await changesOf(trx, zone);
    const nameservers = (await findZoneNameservers(trx, [zone.id])).get(zone.id) ?? [];
    const now = deps.clock.now();
    let changed = false;
    for (const change of changes) {
      const { deletes, retimes, inserts } = await plan(trx, tc, zone, change);
      await assertOutsideChildZones(trx, zone, inserts, inserts).catch((err: unknown) => {
        throw err instanceof ApiError ? unprocessable(err.message) : err;
      });
      await assertRecordQuota(trx, deps.config.quotas, zone.id, inserts.length - deletes.length);
      const record = async (objectId: number, action: 'create' | 'update' | 'delete', before: ZoneRecordRow | null, after: ZoneRecordRow | null) =>
        deps.audit.record(trx, {
          actor: caller, objectType: 'zone_record', objectId, action,
          before: before && serializeZoneRecord(before), after: after && serializeZoneRecord(after),
        });
      for (const row of deletes) {
        await checkRecordChange(trx, zone, nameservers, { removeId: row.id, removed: toZoneRecord(row) });
        const after = await updateZoneRecord(trx, row.id, { deleted_at: now }, now);
        await record(row.id, 'delete', row, after ?? null);
      }
      for (const { row, ttl } of retimes) {
        await checkRecordChange(trx, zone, nameservers, { removeId: row.id, removed: toZoneRecord(row), add: { ...toZoneRecord(row), ttl } });
        const after = await updateZoneRecord(trx, row.id, { ttl }, now);
        await record(row.id, 'update', row, after ?? null);
      }
      for (const add of inserts) {
        await checkRecordChange(trx, zone, nameservers, { add });
        const row = await insertZoneRecord(trx, { zone_id: zone.id, ...add, description: caller.apiToken ? `via API token ${caller.apiToken.name}` : caller.tsigKey ? `via DNS UPDATE with TSIG key ${caller.tsigKey.name}` : '' }, now);
        await record(row.id, 'create', null, row);
      }
      changed ||= deletes.length + retimes.length + inserts.length > 0;
    }
    if (changed) await bumpSerial(trx, zone, now);
    return { zoneId: zone.id, changed };
  });
}
