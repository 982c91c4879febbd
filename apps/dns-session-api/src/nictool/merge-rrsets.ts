// NicTool never checked RRsets; BIND loads what it stored. On import, an RRset whose records differ in TTL takes
// the lowest (RFC 2181 §5.2: one TTL per RRset, and the lowest errs towards fresher answers), and an exact
// duplicate is merged into the first; the caller lists each change.
import { rdataKey, type ZoneRecord } from '../dns';

export interface ImportedRecord {
  record: ZoneRecord;
  description: string;
  deleted: boolean;
  nictoolId: number;
}

/** Live records with one TTL per RRset (the lowest) and no exact duplicates; `note` hears of every change. */
export function mergeRrsets(live: ImportedRecord[], note: (entry: ImportedRecord, reason: string) => void): ImportedRecord[] {
  const lowest = new Map<string, number>();
  for (const { record } of live) {
    const key = `${record.owner} ${record.type}`;
    lowest.set(key, Math.min(lowest.get(key) ?? record.ttl, record.ttl));
  }
  const seen = new Map<string, ImportedRecord>();
  const out: ImportedRecord[] = [];
  for (const entry of live) {
    const ttl = lowest.get(`${entry.record.owner} ${entry.record.type}`) ?? entry.record.ttl;
    const same = `${entry.record.owner} ${entry.record.type} ${rdataKey(entry.record)}`;
    const first = seen.get(same);
    if (first) {
      note(entry, `the same record as NicTool record ${first.nictoolId}; merged into it`);
      continue;
    }
    if (ttl !== entry.record.ttl) {
      note(entry, `TTL ${entry.record.ttl} lowered to ${ttl}, the lowest of its RRset (one TTL per RRset, RFC 2181 §5.2)`);
      entry.record = { ...entry.record, ttl };
    }
    seen.set(same, entry);
    out.push(entry);
  }
  return out;
}
