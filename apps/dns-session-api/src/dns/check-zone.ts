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
  const idx = indexes ?? records.map((_, i) => i);
  const errors: ZoneError[] = [];
  const ttls = new Set(records.map((r) => r.ttl));
  if (ttls.size > 1) {
    errors.push(zoneError(first.owner, first.type, idx, fieldError('ttl', 'rrset_ttl',
      `all records of an RRset share one TTL, found ${[...ttls].join(', ')}`)));
  }
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    const key = rdataKey(r);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      errors.push(zoneError(r.owner, r.type, [idx[earlier] as number, idx[i] as number],
        fieldError('rdata', 'duplicate', 'the same record appears twice')));
    } else {
      seen.set(key, i);
    }
  });
  if (first.type === 'CNAME' && records.length > 1) {
    errors.push(zoneError(first.owner, 'CNAME', idx, fieldError('type', 'cname_single', 'an owner has at most one CNAME')));
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
  const errors: ZoneError[] = [];
  for (const _pause of zoneChecks(zoneName, records, errors));
  return errors;
}

/** checkZone for large zones: the same checks, giving the event loop back every few thousand records. */
export async function checkZoneInSlices(zoneName: string, records: readonly ZoneRecord[]): Promise<ZoneError[]> {
  const errors: ZoneError[] = [];
  for (const _pause of zoneChecks(zoneName, records, errors)) await nextTurn();
  return errors;
}

/** Records checked between two pauses of zoneChecks (a few milliseconds of work). */
const SLICE = 2000;

/** The checks of checkZone, as a generator that pauses (yields) every SLICE records. */
function* zoneChecks(zoneName: string, records: readonly ZoneRecord[], errors: ZoneError[]): Generator<void> {
  const zone = normalizeName(zoneName);
  // One pass collects RRsets and the owners later rules ask about; allocation stays per RRset, not per check,
  // so a 50k-record import is checked in a fraction of a second.
  const rrsets = new Map<string, number[]>();
  const cnameOwners = new Set<string>();
  const addressOwners = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    if (i % SLICE === SLICE - 1) yield;
    const r = records[i] as ZoneRecord;
    if (!isInZone(r.owner, zone)) {
      errors.push(zoneError(r.owner, r.type, [i], fieldError('owner', 'outside_zone', `owner must lie inside the zone ${zone}`)));
      continue;
    }
    if (r.owner === zone && recordTypes[r.type].neverAtApex) {
      errors.push(zoneError(r.owner, r.type, [i], fieldError('owner', 'never_at_apex', `a ${r.type} record may not be at the zone apex`)));
    }
    const key = `${r.owner}\u0000${r.type}`;
    const list = rrsets.get(key);
    if (list) list.push(i);
    else rrsets.set(key, [i]);
    if (r.type === 'CNAME') cnameOwners.add(r.owner);
    else if (r.type === 'A' || r.type === 'AAAA') addressOwners.add(r.owner);
  }
  let n = 0;
  for (const idx of rrsets.values()) {
    if (++n % SLICE === 0) yield;
    // A single record cannot break an RRset rule.
    if (idx.length > 1) errors.push(...checkRRset(idx.map((i) => records[i] as ZoneRecord), idx));
  }
  for (const owner of cnameOwners) {
    if (++n % SLICE === 0) yield;
    const idx = rrsets.get(`${owner}\u0000CNAME`) ?? [];
    if (owner === zone) {
      errors.push(zoneError(owner, 'CNAME', idx, fieldError('owner', 'cname_at_apex', 'a CNAME may not be at the zone apex, where SOA and NS live')));
      continue;
    }
    const others = RECORD_TYPES.filter((t) => t !== 'CNAME' && rrsets.has(`${owner}\u0000${t}`));
    if (others.length) {
      const all = [idx, ...others.map((t) => rrsets.get(`${owner}\u0000${t}`) ?? [])].flat();
      errors.push(zoneError(owner, 'CNAME', all, fieldError('type', 'cname_exclusive',
        `a CNAME must be alone at its owner, found also ${others.join(', ')}`)));
    }
  }
  for (let i = 0; i < records.length; i++) {
    if (i % SLICE === SLICE - 1) yield;
    const r = records[i] as ZoneRecord;
    const field = TARGET_FIELDS[r.type];
    if (!field) continue;
    const target = String(r.rdata[field]);
    if (cnameOwners.has(target)) {
      errors.push(zoneError(r.owner, r.type, [i], fieldError(field, 'target_is_cname', `${field} ${target} is a CNAME; it must name a host`)));
    } else if (r.type === 'NS' && !addressOwners.has(target) && isInZone(target, zone)) {
      errors.push(zoneError(r.owner, r.type, [i], fieldError(field, 'ns_without_address',
        `name server ${target} lies inside the zone but has no A or AAAA record`)));
    }
  }
}
