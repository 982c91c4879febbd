// A record as the pure DNS code sees it: absolute owner, type, TTL and normalized RDATA. validateRecord
// checks one record on its own; zone-wide rules live in check-zone.ts.
import { FieldError, fieldError } from './errors';
import { Rdata } from './fields';
import { checkHostName, checkName, normalizeName, toAbsolute } from './names';
import { isRecordType, RecordType, recordTypes, unsupportedTypeReason, validateRdata } from './types';

export interface ZoneRecord {
  owner: string;
  type: RecordType;
  ttl: number;
  rdata: Rdata;
}

export const MAX_TTL = 2147483647; // RFC 2181 §8

export function checkTtl(field: string, ttl: unknown): FieldError[] {
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0 && ttl <= MAX_TTL
    ? []
    : [fieldError(field, 'ttl', `${field} must be an integer from 0 to ${MAX_TTL} (RFC 2181)`)];
}

export interface RecordInput {
  owner: string;
  type: string;
  ttl: number;
  rdata: Record<string, unknown>;
}

/**
 * Checks one record and returns it normalized: owner made absolute within the zone (relative names and
 * "@" allowed) and lowercased, RDATA checked by its type module. Zone membership is checked by checkZone.
 */
export function validateRecord(zone: string, input: RecordInput): { record?: ZoneRecord; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const owner = typeof input.owner === 'string' && input.owner !== '' ? toAbsolute(input.owner, zone) : input.owner;
  errors.push(...checkName('owner', owner, { wildcard: true }));
  errors.push(...checkTtl('ttl', input.ttl));
  const type = typeof input.type === 'string' ? input.type.toUpperCase() : '';
  if (!isRecordType(type)) {
    errors.push(fieldError('type', 'type', unsupportedTypeReason(String(input.type))));
    return { errors };
  }
  const checked = validateRdata(type, input.rdata);
  errors.push(...checked.errors);
  if (!errors.length && typeof owner === 'string') {
    if (recordTypes[type].hostOwner) errors.push(...checkHostName('owner', owner, true));
    // check-names also covers PTR targets in the reverse trees
    if (type === 'PTR' && /(^|\.)(in-addr|ip6)\.arpa\.$/i.test(owner) && checked.rdata) {
      errors.push(...checkHostName('dname', String(checked.rdata.dname)));
    }
  }
  if (errors.length || !checked.rdata) return { errors };
  return { record: { owner: normalizeName(owner), type, ttl: input.ttl, rdata: checked.rdata }, errors: [] };
}

/** A stable text key of the RDATA (its values in the type's field order), for duplicate detection and sorting. */
export function rdataKey(record: Pick<ZoneRecord, 'type' | 'rdata'>): string {
  const fields = recordTypes[record.type]?.fields;
  if (!fields) return JSON.stringify(Object.keys(record.rdata).sort().map((k) => [k, record.rdata[k]]));
  // A one-field type's key is the value itself: no new string per record (a large import keeps one per record).
  if (fields.length === 1) return String(record.rdata[(fields[0] as { name: string }).name]);
  return fields.map((f) => String(record.rdata[f.name])).join('\u0001');
}
