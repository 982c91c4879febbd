// BIND zone-file export: $ORIGIN, $TTL, the SOA and NS records that come from the zone row and its
// assigned name servers (plus glue for name servers named inside the zone), then every record in DNSSEC
// canonical name order. Owners are written relative to the origin; RDATA names stay absolute.
import { isInZone, normalizeName, relativeTo, splitLabels } from '../names';
import { rdataKey, ZoneRecord } from '../records';
import { Soa } from '../soa';
import { nextTurn } from '../slices';
import { RECORD_TYPES, rdataToBind } from '../types';

export interface ExportNameserver {
  name: string;
  address?: string | null;
  address6?: string | null;
  /** The nameserver's own TTL for its NS record and glue (NicTool's nt_nameserver.ttl); the zone's when absent. */
  ttl?: number | null;
}

export interface ExportZone {
  name: string;
  ttl: number;
  soa: Omit<Soa, 'mname'> & { mname?: string };
  nameservers: readonly ExportNameserver[];
  records: readonly ZoneRecord[];
  /** a first comment line, e.g. who exported it and when */
  comment?: string;
}

/** Canonical order (RFC 4034 §6.1): compare labels right to left. */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  const la = splitLabels(a).reverse();
  const lb = splitLabels(b).reverse();
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    const x = la[i] as string;
    const y = lb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return la.length - lb.length;
}

const TYPE_ORDER = new Map<string, number>(RECORD_TYPES.map((t, i) => [t, i]));

/**
 * The records the zone row itself implies: NS per assigned name server, A/AAAA glue for in-zone ones. Each
 * takes its nameserver's TTL, as NicTool writes them; the apex NS set, which must share one TTL, takes the
 * lowest of them (RFC 2181 §5.2, as the importers merge mixed-TTL sets).
 */
export function derivedRecords(zone: Pick<ExportZone, 'name' | 'ttl' | 'nameservers'>): ZoneRecord[] {
  const name = normalizeName(zone.name);
  const out: ZoneRecord[] = [];
  const ttlOf = (ns: ExportNameserver) => ns.ttl ?? zone.ttl;
  const nsTtl = zone.nameservers.length ? Math.min(...zone.nameservers.map(ttlOf)) : zone.ttl;
  for (const ns of zone.nameservers) {
    const host = normalizeName(ns.name);
    out.push({ owner: name, type: 'NS', ttl: nsTtl, rdata: { dname: host } });
    if (isInZone(host, name)) {
      if (ns.address) out.push({ owner: host, type: 'A', ttl: ttlOf(ns), rdata: { address: ns.address } });
      if (ns.address6) out.push({ owner: host, type: 'AAAA', ttl: ttlOf(ns), rdata: { address: ns.address6 } });
    }
  }
  return out;
}

/**
 * The records a zone file holds besides the SOA: derived NS/glue merged with the stored records (a stored
 * record equal to a derived one is written once; derived records take the TTL of the stored RRset they join,
 * so a set keeps one TTL), in canonical order unless `sorted` is false (the publisher's PowerDNS RRsets need no
 * order, and sorting 100,000 records holds the event loop for tens of milliseconds).
 */
export function zoneFileRecords(zone: ExportZone, { sorted = true }: { sorted?: boolean } = {}): ZoneRecord[] {
  const derived = derivedRecords(zone);
  const all = [...zone.records];
  if (derived.length) {
    // Only records at the few derived owners can collide with derived ones: index just those.
    const owners = new Set(derived.map((d) => d.owner));
    const stored = new Set<string>();
    const rrsetTtl = new Map<string, number>();
    for (const r of zone.records) {
      if (!owners.has(r.owner)) continue;
      stored.add(`${r.owner} ${r.type} ${rdataKey(r)}`);
      rrsetTtl.set(`${r.owner} ${r.type}`, r.ttl);
    }
    for (const d of derived) {
      if (stored.has(`${d.owner} ${d.type} ${rdataKey(d)}`)) continue;
      all.push({ ...d, ttl: rrsetTtl.get(`${d.owner} ${d.type}`) ?? d.ttl });
    }
  }
  if (!sorted) return all;
  // Sort keys computed once per record; the RDATA key only when name and type tie (records of one RRset).
  const keyed = all.map((r) => ({ r, name: canonicalKey(r.owner), type: TYPE_ORDER.get(r.type) ?? 0, rdata: undefined as string | undefined }));
  const rdataOf = (k: (typeof keyed)[number]) => (k.rdata ??= rdataKey(k.r));
  keyed.sort((a, b) => {
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
    if (a.type !== b.type) return a.type - b.type;
    const x = rdataOf(a);
    const y = rdataOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return keyed.map((k) => k.r);
}

/** A string whose plain comparison is the canonical name order: labels right to left, NUL between them. */
function canonicalKey(name: string): string {
  return splitLabels(name).reverse().join('\u0000');
}

export function exportZone(zone: ExportZone): string {
  const lines: string[] = [];
  for (const _pause of zoneFileLines(zone, lines));
  return `${lines.join('\n')}\n`;
}

/** exportZone for large zones: the same text, giving the event loop back every few thousand records. */
export async function exportZoneInSlices(zone: ExportZone): Promise<string> {
  const lines: string[] = [];
  for (const _pause of zoneFileLines(zone, lines)) await nextTurn();
  return `${lines.join('\n')}\n`;
}

/** Records rendered between two pauses. */
const SLICE = 5000;

/** The zone file's lines, appended to `lines`, pausing (yielding) every SLICE records. */
function* zoneFileLines(zone: ExportZone, lines: string[]): Generator<void> {
  const origin = normalizeName(zone.name);
  const records = zoneFileRecords(zone);
  yield;
  // MNAME: the primary is the first assigned nameserver, else the first apex NS record, else the apex.
  const firstNs = records.find((r) => r.type === 'NS' && r.owner === origin);
  const primary = zone.nameservers[0] ? normalizeName(zone.nameservers[0].name) : undefined;
  const mname = zone.soa.mname ?? primary ?? (firstNs ? String(firstNs.rdata.dname) : origin);
  const { rname, serial, refresh, retry, expire, minimum } = zone.soa;
  if (zone.comment) lines.push(`; ${zone.comment.replace(/\n/g, ' ')}`);
  lines.push(`$ORIGIN ${origin}`, `$TTL ${zone.ttl}`);
  lines.push(`@\t${zone.ttl}\tIN\tSOA\t${mname} ${rname} ${serial} ${refresh} ${retry} ${expire} ${minimum}`);
  for (let i = 0; i < records.length; i++) {
    if (i % SLICE === SLICE - 1) yield;
    const r = records[i] as ZoneRecord;
    lines.push(`${relativeTo(r.owner, origin)}\t${r.ttl}\tIN\t${r.type}\t${rdataToBind(r.type, r.rdata)}`);
  }
}
