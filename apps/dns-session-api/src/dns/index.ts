// Pure DNS code: record types, names, zone rules, SOA values and BIND import/export. No I/O, no database.
export * from './errors';
export * from './names';
export * from './ip';
export * from './text';
export type { FieldKind, FieldSpec, Rdata, RdataValue, Token } from './fields';
export { canonicalBase64, isNumericKind } from './fields';
export * from './types';
export * from './records';
export * from './check-zone';
export * from './soa';
export * from './nameserver-exports';
export { importZone, parseTtl } from './bind/import';
export type { ImportResult, ImportedRecord, LineError } from './bind/import';
export { exportZone, exportZoneInSlices, derivedRecords, zoneFileRecords, compareNames } from './bind/export';
export type { ExportZone, ExportNameserver } from './bind/export';
export { rrsetsOf } from './powerdns-rrsets';
export type { PowerDnsRRset } from './powerdns-rrsets';
