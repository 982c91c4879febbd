// Zone-level rules (reference §7.3, PowerDNS Check::checkRRSet): a pure checker that receives every record
// of a zone and returns EVERY violation, each naming the RRset, the field and the rule. The record service
// calls it inside its transaction with the zone's current records plus the change; the BIND importer calls
// it on the parsed file; export relies on it so that named-checkzone accepts what we write.
import { FieldError, fieldError } from './errors';
import { isInZone, normalizeName } from './names';
import { rdataKey, ZoneRecord } from './records';
import { nextTurn } from './slices';
import { RECORD_TYPES, recordTypes } from './types';

export interface ZoneError extends FieldError {
  owner: string;
  type: string;
  /** indexes of the offending records in the checked list */
  records: number[];
}

function zoneError(owner: string, type: string, records: number[], e: FieldError): ZoneError {
  return { ...e, message: `RRset ${owner} IN ${type}: ${e.message}`, owner, type, records };
}

/** Rules inside one RRset (same owner and type): one TTL, no duplicate records, a single CNAME. */
export function checkRRset(records: readonly ZoneRecord[], indexes?: number[]): ZoneError[] {
  const first = records[0];
  if (!first) return [];
  const state = newRRset(first.owner, first.type, indexes?.[0] ?? 0, first.ttl, fingerprint(first));
  records.forEach((r, i) => {
    if (i > 0) addToRRset(state, indexes?.[i] ?? i, r.ttl, fingerprint(r));
  });
  return rrsetErrors(state);
}

/**
 * A record's RDATA as a 53-bit number (two 32-bit FNV-1a hashes of its rdata key): the duplicate rule compares
 * these instead of keeping each key string, which for a 373,000-record import was a fifth of the checker's memory.
 * Two different records of one RRset collide with a chance of 2^-53.
 */
function fingerprint(r: Pick<ZoneRecord, 'type' | 'rdata'>): number {
  const key = rdataKey(r);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** What the rules need to remember of an RRset: its records' indexes, its distinct TTLs, its rdata fingerprints. */
interface RRsetState {
  owner: string;
  type: string;
  indexes: number[];
  ttls: number[];
  keys: Map<number, number>;
  duplicates?: Array<[number, number]>;
}

function newRRset(owner: string, type: string, index: number, ttl: number, key: number): RRsetState {
  return { owner, type, indexes: [index], ttls: [ttl], keys: new Map([[key, index]]) };
}

function addToRRset(state: RRsetState, index: number, ttl: number, key: number): void {
  if (!state.ttls.includes(ttl)) state.ttls.push(ttl);
  const earlier = state.keys.get(key);
  if (earlier !== undefined) (state.duplicates ??= []).push([earlier, index]);
  else state.keys.set(key, index);
  state.indexes.push(index);
}

function rrsetErrors(set: RRsetState): ZoneError[] {
  // A single record cannot break an RRset rule.
  if (set.indexes.length < 2) return [];
  const idx = set.indexes;
  const ttls = set.ttls;
  const errors: ZoneError[] = [];
  if (ttls.length > 1) {
    errors.push(zoneError(set.owner, set.type, idx, fieldError('ttl', 'rrset_ttl', `all records of an RRset share one TTL, found ${ttls.join(', ')}`)));
  }
  for (const pair of set.duplicates ?? []) {
    errors.push(zoneError(set.owner, set.type, pair, fieldError('rdata', 'duplicate', 'the same record appears twice')));
  }
  if (set.type === 'CNAME') {
    errors.push(zoneError(set.owner, 'CNAME', idx, fieldError('type', 'cname_single', 'an owner has at most one CNAME')));
  }
  return errors;
}

/** Names that must not be CNAMEs because other records point at them. */
const TARGET_FIELDS: Record<string, string> = { MX: 'exchange', NS: 'dname', SRV: 'target' };

/**
 * Every zone rule over the whole record list: owners inside the zone, RRset rules, CNAME alone at its owner
 * and never at the apex (where SOA and NS live), DS never at the apex, MX/NS/SRV targets not CNAMEs, and
 * in-zone NS targets having an address (named-checkzone refuses a zone without them).
 */
export function checkZone(zoneName: string, records: readonly ZoneRecord[]): ZoneError[] {
  const checker = new ZoneChecker(zoneName);
  for (const record of records) checker.add(record);
  for (const _pause of checker.finishing());
  return checker.errors;
}

/** checkZone for large zones: the same checks, giving the event loop back every few thousand records. */
export async function checkZoneInSlices(zoneName: string, records: readonly ZoneRecord[]): Promise<ZoneError[]> {
  const checker = new ZoneChecker(zoneName);
  for (let i = 0; i < records.length; i++) {
    if (i % SLICE === SLICE - 1) await nextTurn();
    checker.add(records[i] as ZoneRecord);
  }
  for (const _pause of checker.finishing()) await nextTurn();
  return checker.errors;
}

/** Records checked between two pauses (a few milliseconds of work). */
const SLICE = 2000;

/**
 * The zone rules fed one record at a time, so a caller can check a zone without keeping its records: an
 * importer streams records into the database and keeps only what the rules remember (per RRset: its indexes,
 * TTLs and rdata fingerprints, which for the usual one-record RRset are an index into two arrays rather than objects of
 * their own; the CNAME owners; each MX/NS/SRV target). `errors` is complete after
 * `finishing()` has run; checkZone and checkZoneInSlices are this over a list, with the same errors in the
 * same order.
 */
export class ZoneChecker {
  readonly errors: ZoneError[] = [];
  private readonly zone: string;
  /** RRset → the index of its one record, or its state once it has two. */
  private readonly rrsets = new Map<string, number | RRsetState>();
  /** TTL and rdata fingerprint of each record while its RRset has only it (numbers: no object per record). */
  private readonly ttlAt: number[] = [];
  private readonly keyAt: number[] = [];
  private readonly cnameOwners = new Set<string>();
  private readonly targets: Array<{ index: number; owner: string; type: string; field: string; target: string }> = [];
  private count = 0;

  constructor(zoneName: string) {
    this.zone = normalizeName(zoneName);
  }

  /** Adds the next record (its index is the number of records added before it). */
  add(r: ZoneRecord): void {
    const i = this.count++;
    const field = TARGET_FIELDS[r.type];
    if (field) this.targets.push({ index: i, owner: r.owner, type: r.type, field, target: String(r.rdata[field]) });
    if (!isInZone(r.owner, this.zone)) {
      this.errors.push(zoneError(r.owner, r.type, [i], fieldError('owner', 'outside_zone', `owner must lie inside the zone ${this.zone}`)));
      return;
    }
    if (r.owner === this.zone && recordTypes[r.type].neverAtApex) {
      this.errors.push(zoneError(r.owner, r.type, [i], fieldError('owner', 'never_at_apex', `a ${r.type} record may not be at the zone apex`)));
    }
    const setKey = `${r.owner}\u0000${r.type}`;
    const set = this.rrsets.get(setKey);
    const key = fingerprint(r);
    if (set === undefined) {
      this.rrsets.set(setKey, i);
      this.ttlAt[i] = r.ttl;
      this.keyAt[i] = key;
    } else if (typeof set === 'number') {
      const state = newRRset(r.owner, r.type, set, this.ttlAt[set] as number, this.keyAt[set] as number);
      addToRRset(state, i, r.ttl, key);
      this.rrsets.set(setKey, state);
    } else {
      addToRRset(set, i, r.ttl, key);
    }
    if (r.type === 'CNAME') this.cnameOwners.add(r.owner);
  }

  /** The rules that need every record, pausing (yielding) every few thousand items. */
  *finishing(): Generator<void> {
    const { errors, zone, rrsets } = this;
    let n = 0;
    for (const set of rrsets.values()) {
      if (++n % SLICE === 0) yield;
      if (typeof set !== 'number') errors.push(...rrsetErrors(set));
    }
    const indexesOf = (owner: string, type: string): number[] => {
      const set = rrsets.get(`${owner}\u0000${type}`);
      return set === undefined ? [] : typeof set === 'number' ? [set] : set.indexes;
    };
    const hasAddress = (owner: string) => rrsets.has(`${owner}\u0000A`) || rrsets.has(`${owner}\u0000AAAA`);
    for (const owner of this.cnameOwners) {
      if (++n % SLICE === 0) yield;
      const idx = indexesOf(owner, 'CNAME');
      if (owner === zone) {
        errors.push(zoneError(owner, 'CNAME', idx, fieldError('owner', 'cname_at_apex', 'a CNAME may not be at the zone apex, where SOA and NS live')));
        continue;
      }
      const others = RECORD_TYPES.filter((t) => t !== 'CNAME' && rrsets.has(`${owner}\u0000${t}`));
      if (others.length) {
        const all = [idx, ...others.map((t) => indexesOf(owner, t))].flat();
        errors.push(zoneError(owner, 'CNAME', all, fieldError('type', 'cname_exclusive',
          `a CNAME must be alone at its owner, found also ${others.join(', ')}`)));
      }
    }
    for (const t of this.targets) {
      if (++n % SLICE === 0) yield;
      if (this.cnameOwners.has(t.target)) {
        errors.push(zoneError(t.owner, t.type, [t.index], fieldError(t.field, 'target_is_cname', `${t.field} ${t.target} is a CNAME; it must name a host`)));
      } else if (t.type === 'NS' && !hasAddress(t.target) && isInZone(t.target, zone)) {
        errors.push(zoneError(t.owner, t.type, [t.index], fieldError(t.field, 'ns_without_address',
          `name server ${t.target} lies inside the zone but has no A or AAAA record`)));
      }
    }
  }
}
