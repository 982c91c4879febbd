// Incremental zone transfer (IXFR, RFC 1995) from Keyzone's history. dns.zone_serials (a trigger on dns.zones) lists
// every serial a zone took and the transaction that set it; the audit log holds each record's before and after under
// the same transaction id. Starting from the zone as it is now, the changes of each transaction are undone, newest
// first, back to the client's serial; every undone change must match the state it undoes (the record's latest
// "after" is what the zone holds), so a history that does not explain the zone (entries missing or pruned, a change
// of the zone's nameservers or TTL, which the records' history does not carry) gives the whole zone instead, as
// RFC 1995 §4 allows. A transaction that advanced the serial several times is one step: only its last serial was
// ever visible.
import { sql } from 'kysely';
import type { Deps } from '../deps';
import {
  formatCharStrings, isRecordType, recordTypes, unescapeBytes, zoneFileRecords, type Rdata, type ZoneRecord,
} from '../dns';
import type { Db } from '../queries/db';
import { findLiveZoneRecords } from '../queries/zone-records';
import { findZoneNameservers } from '../queries/zones';
import { readZoneSnapshot, type ZoneSnapshot } from '../services/zones/zone-transfer';
import { toZoneRecord } from '../services/zones/zone-rules';
import { idsOf } from '../serialize-zones';
import { soaRecord, wireRecord } from './wire';

/** Steps looked back at most: a client further behind gets the whole zone. */
const MAX_STEPS = 1000;

type SoaFields = ZoneSnapshot['soa'];

export type IxfrPlan =
  /** RR list of the answer: SOA(new), then per step SOA(old) deleted SOA(next) added, then SOA(new); or SOA(new) alone. */
  | { kind: 'records'; snapshot: ZoneSnapshot; records: unknown[] }
  /** The difference cannot be given: the whole zone, AXFR-style. */
  | { kind: 'full'; snapshot: ZoneSnapshot; reason: string };

interface Step {
  txid: string;
  from: number;
  to: number;
}

interface Entry {
  object_type: string;
  object_id: number;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  txid: string;
}

class NoDiff extends Error {}

/** RFC 1982: whether serial a is at or after b. */
export function serialNotBehind(a: number, b: number): boolean {
  return a === b || ((a - b + 2 ** 32) % 2 ** 32) < 2 ** 31;
}

/**
 * What to answer an IXFR for `clientSerial`: the incremental form when the history explains every change since,
 * the SOA alone when the client is current (or ahead: RFC 1995 §2), otherwise the whole zone. Read in one
 * repeatable-read transaction, so the zone and its history agree. Undefined: the zone is gone.
 */
export async function planIxfr(db: Deps['db'], zoneId: number, clientSerial: number): Promise<IxfrPlan | undefined> {
  return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const snapshot = await readZoneSnapshot(trx, zoneId);
    if (!snapshot) return undefined;
    const { zone, soa } = snapshot;
    const soaNow = soaRecord(zone.name, zone.ttl, soa);
    if (serialNotBehind(clientSerial, soa.serial)) return { kind: 'records', snapshot, records: [soaNow] };
    try {
      const steps = await stepsBack(trx, zoneId, soa.serial, clientSerial);
      const records = await difference(trx, snapshot, steps);
      return { kind: 'records', snapshot, records };
    } catch (err) {
      if (err instanceof NoDiff) return { kind: 'full', snapshot, reason: err.message };
      throw err;
    }
  });
}

/** The transactions that took the zone from `from` to `to`, oldest first. */
async function stepsBack(trx: Db, zoneId: number, to: number, from: number): Promise<Step[]> {
  const rows = await trx.selectFrom('dns.zone_serials').select(['serial', 'previous', 'txid'])
    .where('zone_id', '=', zoneId).orderBy('id', 'desc').limit(MAX_STEPS * 4).execute();
  const steps: Step[] = [];
  let expected = to;
  let i = 0;
  while (expected !== from) {
    if (i >= rows.length || steps.length >= MAX_STEPS) throw new NoDiff('serial not in the history');
    const txid = rows[i]!.txid;
    if (Number(rows[i]!.serial) !== expected) throw new NoDiff('the serial history has a gap');
    let last = rows[i]!;
    while (i < rows.length && rows[i]!.txid === txid) last = rows[i++]!;
    if (last.previous === null) throw new NoDiff('serial not in the history');
    // The same serial again: the zone was deleted or restored, which the records' history does not describe.
    if (Number(last.previous) === expected) throw new NoDiff('the zone was deleted or restored');
    steps.push({ txid: String(txid), from: Number(last.previous), to: expected });
    expected = Number(last.previous);
  }
  return steps.reverse();
}

const sameArray = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A record as the audit log shows it (serializeZoneRecord) back to its stored form; undefined when absent. */
function auditRecord(wire: Record<string, unknown> | null, zoneId: number): ZoneRecord | undefined {
  if (!wire || wire.deleted === true || Number(wire.zid) !== zoneId) return undefined;
  const type = String(wire.type);
  if (!isRecordType(type)) throw new NoDiff(`a record of unknown type ${type} in the history`);
  const rdata: Rdata = {};
  for (const f of recordTypes[type].fields) {
    if (f.kind === 'charstrings') {
      // The API shows TXT data as text and `strings` (each escaped so unescapeBytes gives its bytes back).
      if (!Array.isArray(wire.strings)) throw new NoDiff('a history entry without its character-strings');
      rdata[f.name] = formatCharStrings((wire.strings as string[]).map(unescapeBytes));
    } else if (wire[f.name] !== undefined && wire[f.name] !== null) {
      rdata[f.name] = wire[f.name] as string | number;
    }
  }
  return { owner: String(wire.owner), type, ttl: Number(wire.ttl), rdata };
}

/** A record's identity on the wire: owner, type, TTL and RDATA octets. */
function keyOf(r: ZoneRecord): string {
  const w = wireRecord(r);
  if (!w) throw new NoDiff(`a ${r.type} record without a wire encoder`);
  return `${r.owner.toLowerCase()}|${w.type}|${r.ttl}|${w.data.toString('hex')}`;
}

async function difference(trx: Db, snapshot: ZoneSnapshot, steps: Step[]): Promise<unknown[]> {
  const { zone } = snapshot;
  const nameservers = (await findZoneNameservers(trx, [zone.id])).get(zone.id) ?? [];
  const nameserverIds = idsOf(nameservers);
  const rows = await findLiveZoneRecords(trx, zone.id);
  // The difference is given only when it is not larger than the zone (below), but the entries are read first: a zone
  // rewritten whole at each serial (a secondary of a primary that renumbers, an import) would otherwise load up to
  // MAX_STEPS times the zone for one IXFR any transfer peer may ask for again and again.
  const maxEntries = 4 * (rows.length + steps.length) + 100;
  const entries = (await trx.selectFrom('dns.audit_log')
    .select(['object_type', 'object_id', 'action', 'before', 'after', sql<string>`txid::text`.as('txid')])
    .where(sql<boolean>`txid = any(${steps.map((s) => s.txid)}::bigint[])`)
    .where((eb) => eb.or([eb('zone_id', '=', zone.id), eb('object_type', '=', 'nameserver')]))
    .orderBy('id').limit(maxEntries + 1).execute()) as unknown as Entry[];
  if (entries.length > maxEntries) throw new NoDiff('the history is larger than the zone');
  const byTx = new Map<string, Entry[]>();
  for (const e of entries) {
    const list = byTx.get(e.txid);
    if (list) list.push(e);
    else byTx.set(e.txid, [e]);
  }

  // Records at the owners of derived NS and glue are served merged with those (zoneFileRecords): the served set
  // there is recomputed per state from the few records at those owners; elsewhere a stored record is served as is.
  const exportZone = { name: zone.name, ttl: zone.ttl, soa: { ...snapshot.soa }, nameservers };
  const derivedOwners = new Set(zoneFileRecords({ ...exportZone, records: [] }).map((r) => r.owner));
  const near = new Map<number, ZoneRecord>();
  const counts = new Map<string, number>();
  const count = (k: string, by: number) => {
    const n = (counts.get(k) ?? 0) + by;
    if (n) counts.set(k, n);
    else counts.delete(k);
  };
  const state = new Map<number, ZoneRecord>();
  const put = (id: number, r: ZoneRecord | undefined) => {
    const old = state.get(id);
    if (old) {
      state.delete(id);
      if (derivedOwners.has(old.owner)) near.delete(id);
      else count(keyOf(old), -1);
    }
    if (r) {
      state.set(id, r);
      if (derivedOwners.has(r.owner)) near.set(id, r);
      else count(keyOf(r), 1);
    }
  };
  for (const r of rows) put(r.id, toZoneRecord(r));
  const servedNear = () => new Map(zoneFileRecords({ ...exportZone, records: [...near.values()] }, { sorted: false }).map((r) => [keyOf(r), r] as const));
  const served = (k: string, r: ZoneRecord, nearSet: Map<string, ZoneRecord>) => (derivedOwners.has(r.owner) ? nearSet.has(k) : counts.has(k));

  let soa: SoaFields = { ...snapshot.soa };
  let total = 0;
  const out: Array<{ from: SoaFields; to: SoaFields; deleted: ZoneRecord[]; added: ZoneRecord[] }> = [];
  for (const step of [...steps].reverse()) {
    const list = byTx.get(step.txid) ?? [];
    if (list.length === 0) throw new NoDiff('a serial change without history');
    const touched = new Map<number, { first: Entry; last: Entry }>();
    const zoneEntries: Entry[] = [];
    for (const e of list) {
      if (e.object_type === 'nameserver') throw new NoDiff('a nameserver changed');
      if (e.object_type === 'zone') zoneEntries.push(e);
      if (e.object_type !== 'zone_record') continue;
      const t = touched.get(e.object_id);
      touched.set(e.object_id, { first: t?.first ?? e, last: e });
    }
    let soaBefore: SoaFields = { ...soa, serial: step.from };
    for (const e of zoneEntries) {
      if (e.action !== 'update' || !e.before || !e.after) throw new NoDiff(`the zone was ${e.action}d`);
      for (const side of [e.before, e.after]) {
        if (Number(side.ttl) !== zone.ttl) throw new NoDiff('the zone TTL changed');
        if (!sameArray(side.nameservers, nameserverIds)) throw new NoDiff('the zone nameservers changed');
      }
    }
    if (zoneEntries.length > 0) {
      const a = zoneEntries.at(-1)!.after!;
      if (String(a.mailaddr) !== soa.rname || Number(a.refresh) !== soa.refresh || Number(a.retry) !== soa.retry || Number(a.expire) !== soa.expire || Number(a.minimum) !== soa.minimum) {
        throw new NoDiff('the zone history does not match its SOA');
      }
      const b = zoneEntries[0]!.before!;
      soaBefore = { ...soa, serial: step.from, rname: String(b.mailaddr), refresh: Number(b.refresh), retry: Number(b.retry), expire: Number(b.expire), minimum: Number(b.minimum) };
    }

    // The state after the step is the one held now: check it is what the history says, then undo the step.
    const changes: Array<{ id: number; after: ZoneRecord | undefined; before: ZoneRecord | undefined }> = [];
    for (const [id, { first, last }] of touched) {
      const after = auditRecord(last.after, zone.id);
      const held = state.get(id);
      if ((held ? keyOf(held) : undefined) !== (after ? keyOf(after) : undefined)) throw new NoDiff('the record history does not match the zone');
      const before = auditRecord(first.before, zone.id);
      if (nameservers.length === 0 && [after, before].some((r) => r?.type === 'NS' && r.owner === zone.name)) {
        // The SOA MNAME then comes from the apex NS records, which this step changed.
        throw new NoDiff('an apex NS record changed in a zone without nameservers');
      }
      changes.push({ id, after, before });
    }
    const nearAfter = servedNear();
    const candidates = new Map<string, ZoneRecord>(nearAfter);
    for (const c of changes) for (const r of [c.after, c.before]) if (r) candidates.set(keyOf(r), r);
    const wasServedAfter = new Map([...candidates].map(([k, r]) => [k, served(k, r, nearAfter)] as const));
    for (const c of changes) put(c.id, c.before);
    const nearBefore = servedNear();
    for (const [k, r] of nearBefore) candidates.set(k, r);
    const deleted: ZoneRecord[] = [];
    const added: ZoneRecord[] = [];
    for (const [k, r] of candidates) {
      const before = served(k, r, nearBefore);
      const after = wasServedAfter.get(k) ?? false;
      if (before && !after) deleted.push(r);
      if (after && !before) added.push(r);
    }
    // As BIND's max-ixfr-ratio 100%: more changed records than the zone holds is better sent whole.
    total += deleted.length + added.length;
    if (total > snapshot.records.length) throw new NoDiff('the difference is larger than the zone');
    out.push({ from: soaBefore, to: { ...soa, serial: step.to }, deleted, added });
    soa = soaBefore;
  }

  const soaRr = (fields: SoaFields) => soaRecord(zone.name, zone.ttl, fields);
  const records: unknown[] = [soaRr(snapshot.soa)];
  for (const s of out.reverse()) records.push(soaRr(s.from), ...s.deleted.map(wireRecord), soaRr(s.to), ...s.added.map(wireRecord));
  records.push(soaRr(snapshot.soa));
  return records;
}
