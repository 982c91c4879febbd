// A zone as PowerDNS RRsets (its HTTP API's JSON): what the publisher sends to PowerDNS and what the
// PowerDNS-compatible API answers. Pure: no I/O.
import { normalizeName } from './names';
import type { ZoneRecord } from './records';
import { nextTurn } from './slices';
import { isRecordType, rdataToBind, recordTypes } from './types';
import { zoneFileRecords, type ExportZone } from './bind/export';

export interface PowerDnsRRset {
  name: string;
  type: string;
  ttl?: number;
  changetype?: 'REPLACE' | 'DELETE';
  records?: Array<{ content: string; disabled: boolean }>;
}

/** The type name PowerDNS knows a record type by: its own, or TYPE<code> for one it lacks (HIP in 4.7). */
export function powerDnsType(type: string): string {
  const def = isRecordType(type) ? recordTypes[type] : undefined;
  return def?.genericWire ? `TYPE${def.code}` : type;
}

/** A record's content for PowerDNS: presentation format, or RFC 3597's generic form for a type it lacks. */
function powerDnsContent(r: ZoneRecord): string {
  const wire = recordTypes[r.type].genericWire?.(r.rdata);
  return wire ? `\\# ${wire.length} ${wire.toString('hex')}` : rdataToBind(r.type, r.rdata);
}

/**
 * The zone as PowerDNS RRsets (owner, type) with presentation-format contents; the SOA first, the rest in
 * canonical order unless `sorted` is false. Gives the event loop back every few thousand records (a large zone's
 * publishing must not hold other requests up).
 */
export async function rrsetsOf(zone: ExportZone, options: { sorted?: boolean } = {}): Promise<PowerDnsRRset[]> {
  const origin = normalizeName(zone.name);
  const records = zoneFileRecords(zone, options);
  const primary = zone.nameservers[0] ? normalizeName(zone.nameservers[0].name) : origin;
  const { rname, serial, refresh, retry, expire, minimum } = zone.soa;
  const sets = new Map<string, PowerDnsRRset>();
  sets.set(`${origin} SOA`, {
    name: origin, type: 'SOA', ttl: zone.ttl,
    records: [{ content: `${zone.soa.mname ?? primary} ${rname} ${serial} ${refresh} ${retry} ${expire} ${minimum}`, disabled: false }],
  });
  for (let i = 0; i < records.length; i++) {
    if (i % 5000 === 4999) await nextTurn();
    const r = records[i] as ZoneRecord;
    const type = powerDnsType(r.type);
    const key = `${r.owner} ${type}`;
    let set = sets.get(key);
    if (!set) {
      set = { name: r.owner, type, ttl: r.ttl, records: [] };
      sets.set(key, set);
    }
    set.records!.push({ content: powerDnsContent(r), disabled: false });
  }
  return [...sets.values()];
}
