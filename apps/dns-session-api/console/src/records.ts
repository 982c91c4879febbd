// What the console knows about record types: the fields of the common ones for the "add" form (every type's
// fields come back with its records, so editing works for all of them), and how a record's data reads.
import type { ZoneRecord } from './api';

export const TYPE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  A: ['address'],
  AAAA: ['address'],
  CNAME: ['cname'],
  MX: ['preference', 'exchange'],
  TXT: ['data'],
  NS: ['dname'],
  PTR: ['dname'],
  SRV: ['priority', 'weight', 'port', 'target'],
  CAA: ['flags', 'tag', 'value'],
};

export const NUMERIC_FIELDS = new Set(['preference', 'priority', 'weight', 'port', 'flags', 'key_tag', 'algorithm', 'digest_type', 'order', 'fptype', 'precedence', 'gateway_type', 'protocol', 'cert_type', 'pk_algorithm', 'certificate_usage', 'selector', 'matching_type']);

// `strings` is TXT's read-only view of its character-strings (the API takes `data`).
const BASE = new Set(['id', 'zid', 'owner', 'type', 'ttl', 'description', 'deleted', 'last_modified', 'strings']);

/** The RDATA field names of a record: in presentation order for the common types, else as the API gives them. */
export function dataFields(record: ZoneRecord): string[] {
  return TYPE_FIELDS[record.type]?.filter((k) => k in record) ?? Object.keys(record).filter((k) => !BASE.has(k));
}

export function rdataText(record: ZoneRecord): string {
  return dataFields(record).map((k) => String(record[k] ?? '')).join(' ');
}

/** A form's text values as the API wants them (numbers where the field is numeric). */
export function toBody(values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (k === 'ttl') { if (v.trim() !== '') body.ttl = /^\d+$/.test(v.trim()) ? Number(v) : v; continue; }
    body[k] = NUMERIC_FIELDS.has(k) && /^\d+$/.test(v.trim()) ? Number(v) : v;
  }
  return body;
}

/** The owner as people write it inside the zone: "@" for the apex, "www" for www.<zone>. */
export function relativeOwner(owner: string, zone: string): string {
  if (owner === zone) return '@';
  return owner.endsWith(`.${zone}`) ? owner.slice(0, -(zone.length + 1)) : owner;
}
