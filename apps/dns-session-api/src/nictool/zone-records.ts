// The records of one NicTool zone as Keyzone stores them: each mapped to Keyzone's fields and checked by the
// API's rules, NS equal to the assigned nameservers left to export, mixed-TTL RRsets and duplicates merged, and
// the zone rules applied to the live ones. Every record left out or changed is reported through `note`.
import { checkZone, derivedRecords, rdataKey, validateRecord } from '../dns';
import { mergeRrsets, type ImportedRecord } from './merge-rrsets';
import { mapNicToolRecord } from './records';
import type { NtRecord } from './source';

export function selectZoneRecords(
  name: string,
  nameserverNames: string[],
  sourceRecords: NtRecord[],
  note: (nictoolId: number, what: string, reason: string) => void,
): ImportedRecord[] {
  // NS records equal to what the assigned nameservers give are derived on export: not stored twice.
  const derived = new Set(
    derivedRecords({ name, ttl: 0, nameservers: nameserverNames.map((ns) => ({ name: ns })) }).filter((r) => r.type === 'NS').map((r) => `${r.owner} NS ${rdataKey(r)}`),
  );
  const accepted: ImportedRecord[] = [];
  for (const r of sourceRecords) {
    const mapped = mapNicToolRecord(name, r);
    if ('skip' in mapped) {
      note(r.id, `${r.name} in ${name}`, mapped.skip);
      continue;
    }
    if (mapped.note) note(r.id, `${r.name} ${mapped.input.type} in ${name}`, mapped.note);
    const checked = validateRecord(name, mapped.input);
    if (!checked.record) {
      note(r.id, `${r.name} ${mapped.input.type} in ${name}`, checked.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
      continue;
    }
    if (!r.deleted && derived.has(`${checked.record.owner} NS ${rdataKey(checked.record)}`)) {
      note(r.id, `${r.name} NS in ${name}`, 'the same as an assigned nameserver of the zone, which Keyzone writes on export; not stored twice');
      continue;
    }
    accepted.push({ record: checked.record, description: mapped.description, deleted: r.deleted, nictoolId: r.id });
  }
  // What BIND loads and NicTool never checked: an RRset whose records differ in TTL takes the lowest (RFC 2181
  // §5.2), and an exact duplicate is merged into the first; each is listed.
  const live = mergeRrsets(accepted.filter((a) => !a.deleted), (entry, reason) =>
    note(entry.nictoolId, `${entry.record.owner} ${entry.record.type} in ${name}`, reason));
  // Zone rules over the live records: every record an error names is refused, and listed.
  const refused = new Set<number>();
  for (const e of checkZone(name, live.map((a) => a.record))) {
    for (const i of e.records) {
      const entry = live[i];
      if (!entry || refused.has(entry.nictoolId)) continue;
      refused.add(entry.nictoolId);
      note(entry.nictoolId, `${entry.record.owner} ${entry.record.type} in ${name}`, `${e.message} (${e.rule})`);
    }
  }
  const kept = new Set(live.map((a) => a.nictoolId));
  const records = accepted.filter((a) => (a.deleted || kept.has(a.nictoolId)) && !refused.has(a.nictoolId));
  return records;
}
