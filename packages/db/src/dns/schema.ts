// Kysely table types for schema `dns`. The DNS engineers add one interface per table here and key it
// in DnsDatabase as 'dns.<table>' (e.g. 'dns.users', 'dns.groups', 'dns.sessions', 'dns.zones').
// Conventions as in ../auth/schema.ts: timestamptz → Date, int8 → string, Generated<> for defaults.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DnsDatabase {}
