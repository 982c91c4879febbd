// BIND zone files in and out. Import parses and checks the whole file first (every bad line reported, nothing
// written), then creates the zone, its nameserver assignments and every record in one transaction. Apex NS
// records naming a nameserver the caller may use become assignments (so NS keep deriving from nameservers);
// others stay ordinary records.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../deps';
import { derivedRecords, exportZone, importZone, rdataKey, SOA_DEFAULTS } from '../dns';
import { notFound } from '../errors';
import { insertRecordCreateEntries } from '../queries/audit';
import { assertRecordQuota, assertZoneQuota } from './quotas';
import { findLiveNameserversByName } from '../queries/nameservers';
import { findLiveZoneRecords, insertZoneRecords } from '../queries/zone-records';
import { findZoneById, findZoneNameservers, insertZone, replaceZoneNameservers } from '../queries/zones';
import { serializeZone, type Zone } from '../serialize-zones';
import type { Caller } from './caller';
import { assertGroupAccess, assertGroupUsableForNewObject, canUseNameserverOf } from './dns-access';
import { filterInSlices } from '../dns/slices';
import { invalidZoneFile } from './dns-errors';
import { toZoneRecord } from './zone-rules';
import { duplicateZone } from './zones';

export async function exportZoneFile(deps: Deps, caller: Caller, zoneId: number): Promise<{ name: string; text: string }> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const [nameservers, rows] = await Promise.all([
    findZoneNameservers(deps.db, [zone.id]).then((m) => m.get(zone.id) ?? []),
    findLiveZoneRecords(deps.db, zone.id),
  ]);
  const text = exportZone({
    name: zone.name,
    ttl: zone.ttl,
    soa: { rname: zone.mailaddr, serial: zone.serial, refresh: zone.refresh, retry: zone.retry, expire: zone.expire, minimum: zone.minimum },
    nameservers,
    records: rows.map(toZoneRecord),
    comment: `zone ${zone.name} (id ${zone.id}) exported by Keyzone at ${deps.clock.now().toISOString()}`,
  });
  return { name: zone.name, text };
}

export interface ImportInput {
  zone: string;
  zonefile: string;
  gid?: number;
  description?: string;
}

export async function importZoneFile(deps: Deps, caller: Caller, input: ImportInput): Promise<{ zone: Zone; records: number }> {
  const parsed = await importZone(input.zone, input.zonefile);
  if (parsed.errorCount > 0 || !parsed.soa) throw invalidZoneFile(parsed.errors, parsed.errorCount);
  const { soa } = parsed;
  const groupId = input.gid ?? caller.groupId;
  return deps.db.transaction().execute(async (trx) => {
    await assertGroupUsableForNewObject(trx, caller, groupId);
    await assertZoneQuota(trx, deps.config.quotas, groupId);
    // Apex NS → assignments of nameservers the caller may use, in file order.
    const apexNs = parsed.records.filter((r) => r.type === 'NS' && r.owner === parsed.zone);
    const known = await findLiveNameserversByName(trx, apexNs.map((r) => String(r.rdata.dname)), { share: true });
    const usable = new Map<string, (typeof known)[number]>();
    for (const ns of known) if (await canUseNameserverOf(trx, caller, ns.group_id)) usable.set(ns.name, ns);
    // The SOA MNAME (the primary) first, then file order: export writes the first nameserver as MNAME.
    const assigned = apexNs
      .map((r) => usable.get(String(r.rdata.dname)))
      .filter((n) => n !== undefined)
      .sort((a, b) => Number(b.name === soa.mname) - Number(a.name === soa.mname));
    // Those NS records, and A/AAAA glue equal to what the assigned nameservers' addresses give, are derived
    // again on export: storing them too would duplicate them.
    const derived = new Set(
      derivedRecords({ name: parsed.zone, ttl: 0, nameservers: assigned })
        .map((r) => `${r.owner} ${r.type} ${rdataKey(r)}`),
    );
    const records = await filterInSlices(parsed.records, (r) => !derived.has(`${r.owner} ${r.type} ${rdataKey(r)}`));

    const now = deps.clock.now();
    const zone = await insertZone(trx, {
      group_id: groupId, name: parsed.zone, description: input.description ?? '', mailaddr: soa.rname, serial: soa.serial,
      refresh: soa.refresh, retry: soa.retry, expire: soa.expire, minimum: soa.minimum,
      ttl: parsed.defaultTtl ?? soa.ttl ?? SOA_DEFAULTS.ttl,
    }, now).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateZone() : err;
    });
    await assertRecordQuota(trx, deps.config.quotas, zone.id, records.length);
    await replaceZoneNameservers(trx, zone.id, assigned.map((n) => n.id));
    await insertZoneRecords(trx, zone.id, records, now);
    const wire = serializeZone(zone, assigned);
    await deps.audit.record(trx, { actor: caller, objectType: 'zone', objectId: zone.id, action: 'create', before: null, after: wire });
    await insertRecordCreateEntries(trx, zone.id, caller.userId, now, caller.ip ?? null);
    return { zone: wire, records: records.length };
  });
}
