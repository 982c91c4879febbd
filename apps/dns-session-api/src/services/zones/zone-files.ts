// BIND zone files in and out. Import is one transaction: the zone row, then every record as it is parsed (in
// batches, so a 373,000-record file is never whole in memory), then the SOA and the nameserver assignments; any
// bad line (every one is reported) rolls it all back, so nothing is written. Apex NS records naming a nameserver
// the caller may use become assignments (so NS keep deriving from nameservers); others stay ordinary records.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { defaultMailbox, derivedRecords, exportZoneInSlices, importZone, SOA_DEFAULTS, type ZoneRecord } from '../../dns';
import { notFound } from '../../errors';
import { insertRecordCreateEntries } from '../../queries/audit';
import { assertRecordQuota, assertZoneQuota, importRecordQuota } from './quotas';
import { findLiveNameserversByName } from '../../queries/nameservers';
import { deleteZoneRecordsLike, findLiveZoneRecords, insertZoneRecords } from '../../queries/zone-records';
import { findZoneById, findZoneNameservers, insertZone, replaceZoneNameservers, updateZone, type ZoneRow } from '../../queries/zones';
import { idsOf, serializeZone, type Zone } from '../../serialize-zones';
import type { Caller } from '../access/caller';
import type { Db } from '../../queries/db';
import { usableNsAllows } from '../directory/permission-objects';
import { assertGroupAccess, assertGroupUsableForNewObject, canUseNameserverOf } from './dns-access';
import { invalidZoneFile } from './dns-errors';
import { toZoneRecord } from './zone-rules';
import { checkZoneFields, duplicateZone } from './zones';
import { assertZonePlacement, childZoneGuard } from './zone-tenancy';

export async function exportZoneFile(deps: Deps, caller: Caller, zoneId: number): Promise<{ name: string; text: string }> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const [nameservers, rows] = await Promise.all([
    findZoneNameservers(deps.db, [zone.id]).then((m) => m.get(zone.id) ?? []),
    findLiveZoneRecords(deps.db, zone.id),
  ]);
  const text = await exportZoneInSlices({
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
  /** The text, or its pieces read once as they are parsed (dns/bind/pieces.ts). */
  zonefile: string | Iterable<string>;
  gid?: number;
  description?: string;
}

/** What an import would create, as a dry run reports it (the records: the first PREVIEW_RECORDS of the file). */
export interface ImportPreview {
  /** The zone as it would be (without an id: none was kept). */
  zone: Omit<Zone, 'id'>;
  records: number;
  by_type: Record<string, number>;
  preview: Array<{ line: number; owner: string; type: string; ttl: number | undefined } & Record<string, unknown>>;
}

const PREVIEW_RECORDS = 500;

/** Thrown inside a dry run's transaction to roll it back once everything was checked; carries what it found. */
class DryRunRollback extends Error {
  constructor(readonly preview: ImportPreview) {
    super('dry run');
  }
}

/**
 * An import that checks everything a real one does (every line, the zone's name and placement, quotas, the
 * nameservers) inside the same transaction, then rolls it back: nothing is written, and the answer is what
 * would have been created. The console shows it before the import is applied.
 */
export async function previewZoneFileImport(deps: Deps, caller: Caller, input: ImportInput): Promise<ImportPreview> {
  try {
    await importZoneFile(deps, caller, input, { dryRun: true });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.preview;
    throw err;
  }
  throw new Error('a dry run completed without rolling back');
}

/** `within`: more work in the import's transaction once the zone is written (import-axfr keeps it as a secondary). */
export async function importZoneFile(
  deps: Deps, caller: Caller, input: ImportInput, options: { dryRun?: boolean; within?: (trx: Db, zone: ZoneRow) => Promise<void> } = {},
): Promise<{ zone: Zone; records: number }> {
  const groupId = input.gid ?? caller.groupId;
  // The zone's name is checked as POST /zone checks it (a name the nameservers cannot take is a 400 at once).
  const name = checkZoneFields({ zone: input.zone }).name as string;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    // The zone row comes first, with default SOA fields, so that records go into the database as they are parsed
    // (a large zone is never whole in memory); the SOA is set once the file is read, and a bad file rolls it all
    // back. A file with bad lines answers 400 before anything about the zone or group does, as it always has;
    // a quota is the exception: it answers at once, since reading the file is the work it is there to spare.
    const answerBadFileFirst = async (err: unknown): Promise<never> => {
      const parsed = await importZone(input.zone, input.zonefile, { onRecord: () => undefined });
      if (parsed.errorCount > 0 || !parsed.soa) throw invalidZoneFile(parsed.errors, parsed.errorCount);
      throw isUniqueViolation(err) ? duplicateZone() : err;
    };
    await assertGroupUsableForNewObject(trx, caller, groupId).catch(answerBadFileFirst);
    await assertZoneQuota(trx, deps.config.quotas, groupId);
    await assertZonePlacement(trx, caller, { name, groupId });
    const zone: ZoneRow = await insertZone(trx, {
      group_id: groupId, name, description: input.description ?? '', mailaddr: defaultMailbox(name), serial: 0,
      refresh: SOA_DEFAULTS.refresh, retry: SOA_DEFAULTS.retry, expire: SOA_DEFAULTS.expire, minimum: SOA_DEFAULTS.minimum, ttl: SOA_DEFAULTS.ttl,
    }, now).catch(answerBadFileFirst);

    const countTowardsQuota = await importRecordQuota(trx, deps.config.quotas, name);
    const childZones = await childZoneGuard<ZoneRecord & { line: number }>(trx, name);
    const belowChild = (line: number, reason: string) => invalidZoneFile([{ line, message: reason }]);
    const apexNs: ZoneRecord[] = [];
    let batch: ZoneRecord[] = [];
    let stored = 0;
    const byType: Record<string, number> = {};
    const preview: ImportPreview['preview'] = [];
    const flush = async () => {
      if (batch.length > 0) await insertZoneRecords(trx, zone.id, batch, now);
      stored += batch.length;
      batch = [];
    };
    const parsed = await importZone(input.zone, input.zonefile, {
      onRecord: async (record) => {
        countTowardsQuota(record);
        const inChild = childZones.check(record);
        if (inChild) throw belowChild(record.line, inChild);
        if (record.type === 'NS' && record.owner === name) apexNs.push(record);
        if (options.dryRun) {
          byType[record.type] = (byType[record.type] ?? 0) + 1;
          if (preview.length < PREVIEW_RECORDS) preview.push({ ...record.rdata, line: record.line, owner: record.owner, type: record.type, ttl: record.ttl });
        }
        batch.push(record);
        if (batch.length >= INSERT_BATCH) await flush();
      },
    });
    await flush();
    if (parsed.errorCount > 0 || !parsed.soa) throw invalidZoneFile(parsed.errors, parsed.errorCount);
    const glue = childZones.finish()[0];
    if (glue) throw belowChild(glue.record.line, glue.reason);
    const { soa } = parsed;

    // Apex NS → assignments of nameservers the caller may use, in file order.
    const known = await findLiveNameserversByName(trx, apexNs.map((r) => String(r.rdata.dname)), { share: true });
    const usable = new Map<string, (typeof known)[number]>();
    for (const ns of known) {
      if ((await canUseNameserverOf(trx, caller, ns.group_id)) && (await usableNsAllows(trx, zone.group_id, ns))) usable.set(ns.name, ns);
    }
    // The SOA MNAME (the primary) first, then file order: export writes the first nameserver as MNAME.
    const assigned = apexNs
      .map((r) => usable.get(String(r.rdata.dname)))
      .filter((n) => n !== undefined)
      .sort((a, b) => Number(b.name === soa.mname) - Number(a.name === soa.mname));
    // Those NS records, and A/AAAA glue equal to what the assigned nameservers' addresses give, are derived
    // again on export: storing them too would duplicate them.
    const dropped = await deleteZoneRecordsLike(trx, zone.id, derivedRecords({ name, ttl: 0, nameservers: assigned }));
    await assertRecordQuota(trx, deps.config.quotas, zone.id, 0);

    const updated = (await updateZone(trx, zone.id, {
      mailaddr: soa.rname, serial: soa.serial, refresh: soa.refresh, retry: soa.retry, expire: soa.expire, minimum: soa.minimum,
      ttl: parsed.defaultTtl ?? soa.ttl ?? SOA_DEFAULTS.ttl,
    }, now)) as ZoneRow;
    const nameserverIds = idsOf(assigned);
    await replaceZoneNameservers(trx, zone.id, nameserverIds);
    const wire = serializeZone(updated, nameserverIds);
    if (options.dryRun) {
      const { id: _rolledBack, ...wouldBe } = wire;
      throw new DryRunRollback({ zone: wouldBe, records: stored - dropped, by_type: byType, preview });
    }
    await deps.audit.record(trx, { actor: caller, objectType: 'zone', objectId: zone.id, action: 'create', before: null, after: wire });
    await insertRecordCreateEntries(trx, zone.id, caller.userId, now, caller.ip ?? null);
    await options.within?.(trx, updated);
    return { zone: wire, records: stored - dropped };
  });
}

/** Rows per insert statement while a file is read. */
const INSERT_BATCH = 5000;
