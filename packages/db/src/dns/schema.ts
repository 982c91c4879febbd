// Kysely table types for schema `dns`. The DNS engineers add one interface per table here and key it
// in DnsDatabase as 'dns.<table>' (e.g. 'dns.users', 'dns.groups', 'dns.sessions', 'dns.zones').
// Conventions as in ../auth/schema.ts: timestamptz → Date, int8 → string, Generated<> for defaults.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DnsDatabase {}

// --- groups, users, sessions (migration 202611230310_groups_users_sessions; owner: sessions engineer) ---
// Declared as a second DnsDatabase block so each engineer appends without touching the other's lines.
import type { ColumnType, Generated } from 'kysely';

export type PasswordScheme = 'bcrypt' | 'pbkdf2-sha512' | 'hmac-sha1' | 'plaintext';

export interface DnsGroupsTable {
  id: Generated<number>;
  parent_id: number | null;                 // null = a root group
  name: string;
  dnssec_default: Generated<boolean>;       // new zones of the group are signed (migration 202611270200)
  usable_ns: number[] | null;               // nameservers above it its zones may use; null: all (migration 202611282200)
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DnsUsersTable {
  id: Generated<number>;
  group_id: number;
  username: string;
  email: string;
  first_name: Generated<string>;
  last_name: Generated<string>;
  password_hash: string;                    // never leaves the service
  password_scheme: Generated<PasswordScheme>;
  salt: string | null;                      // NicTool PBKDF2 salt; null for bcrypt
  is_admin: Generated<boolean>;
  inherit_group_permissions: Generated<boolean>; // the group's permission object applies (migration 202611282200)
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DnsSessionsTable {
  id: Generated<number>;                    // session.id in the login response
  sid: string;                              // the express-session id (the cookie's unsigned value)
  user_id: number;
  data: ColumnType<unknown, string, string>; // jsonb: read parsed, written as JSON text
  expires_at: Date;
  created_at: Generated<Date>;
  last_seen_at: Date | null;
}

export interface DnsDatabase {
  'dns.groups': DnsGroupsTable;
  'dns.users': DnsUsersTable;
  'dns.sessions': DnsSessionsTable;
}

// --- nameservers, zones, zone records, audit history (migration 202611230330_zones_records_nameservers;
// owner: zones engineer) ---

export type NameserverExportType = 'bind' | 'nsd' | 'knot' | 'powerdns' | 'tinydns';

export interface DnsNameserversTable {
  id: Generated<number>;
  group_id: number;
  name: string;                             // absolute, lowercase, trailing dot
  address: string | null;
  address6: string | null;
  ttl: Generated<number>;
  description: Generated<string>;
  export_type: Generated<NameserverExportType>;
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DnsZonesTable {
  id: Generated<number>;
  group_id: number;
  name: string;                             // absolute, lowercase, trailing dot; unique among live zones
  description: Generated<string>;
  mailaddr: string;                         // SOA RNAME form (hostmaster.example.com.)
  serial: ColumnType<string, number | string, number | string>; // int8 (uint32 range)
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  ttl: number;
  dnssec: Generated<boolean>;                // signed by its nameservers (migration 202611270200)
  nsec3: Generated<boolean>;                 // signed with NSEC3 rather than NSEC (migration 202611270300)
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DnsZoneNameserversTable {
  zone_id: number;
  nameserver_id: number;
  position: Generated<number>;
}

export interface DnsZoneRecordsTable {
  id: Generated<number>;
  zone_id: number;
  owner: string;                            // absolute, lowercase
  type: string;
  ttl: number;
  rdata: ColumnType<Record<string, string | number>, string, string>; // jsonb, RFC field names
  description: Generated<string>;
  deleted_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type AuditObjectType = 'zone' | 'zone_record' | 'nameserver' | 'user' | 'group' | 'permission'; // permission: migration 202611282200
export type AuditActionName = 'create' | 'update' | 'delete' | 'restore';

export interface DnsAuditLogTable {
  id: Generated<string>;                    // bigserial
  object_type: AuditObjectType;
  object_id: number;
  zone_id: number | null;                   // set for zones and their records: a zone's history includes its records
  action: AuditActionName;
  user_id: number | null;
  at: Date;
  before: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  after: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  ip: ColumnType<string | null, string | null | undefined, string | null>; // inet: the client's address (migration 202611260100)
  api_token_id: ColumnType<number | null, number | null | undefined, number | null>; // the API token of the change (202611270100)
  api_token_name: ColumnType<string | null, string | null | undefined, string | null>;
  tsig_key_id: ColumnType<number | null, number | null | undefined, number | null>;
  tsig_key_name: ColumnType<string | null, string | null | undefined, string | null>;
  actor_name: ColumnType<string | null, string | null | undefined, string | null>; // a system actor (the secondary refresher), user_id null (202612020100)
  txid: ColumnType<string | null, never, never>; // int8: the writing transaction (default txid_current()), ties entries to dns.zone_serials (202612020200)
}

export interface DnsDatabase {
  'dns.nameservers': DnsNameserversTable;
  'dns.zones': DnsZonesTable;
  'dns.zone_nameservers': DnsZoneNameserversTable;
  'dns.zone_records': DnsZoneRecordsTable;
  'dns.audit_log': DnsAuditLogTable;
}

// --- NicTool import map (migration 202611240120_nictool_import_map) ---
export interface DnsNictoolImportsTable {
  kind: 'group' | 'user' | 'nameserver' | 'zone';
  nictool_id: number;
  local_id: number;
  imported_at: Generated<Date>;
}

export interface DnsDatabase {
  'dns.nictool_imports': DnsNictoolImportsTable;
}

// --- auth-server identities of DNS users (migration 202611250100_user_identities) ---
export interface DnsUserIdentitiesTable {
  sub: string;                               // the auth server's user id (uuid), or an OIDC provider's subject (migration 202611290100)
  user_id: number;
  linked_by: 'admin' | 'verified_email';
  created_at: Generated<Date>;
}

export interface DnsDatabase {
  'dns.user_identities': DnsUserIdentitiesTable;
}

// --- zone publishing (migration 202611250200_publish_jobs) ---
export interface DnsPublishJobsTable {
  id: Generated<string>;                     // bigserial, as a string
  nameserver_id: number;
  zone_id: number;
  created_at: Generated<Date>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  last_error: string | null;
  rrsets: string[] | null;                   // "<owner> <type>" the change touched; null = the whole zone (202611280100)
  lease_until: Date | null;                  // claimed by a publisher until then (202611280100)
}

export interface DnsPublishStatusTable {
  nameserver_id: number;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

/** What a nameserver was last given of a zone (migration 202611280100_publish_isolation). */
export interface DnsPublishZoneStateTable {
  nameserver_id: number;
  zone_id: number;
  serial: ColumnType<string, number | string, number | string>;
  published_at: Date;
}

export interface DnsDatabase {
  'dns.publish_jobs': DnsPublishJobsTable;
  'dns.publish_status': DnsPublishStatusTable;
  'dns.publish_zone_state': DnsPublishZoneStateTable;
}

// --- shared login limits (migration 202611260200_rate_limit_buckets) ---
export interface DnsRateLimitBucketsTable {
  key: string;
  tokens: number;
  updated_at: Date;
}

export interface DnsDatabase {
  'dns.rate_limit_buckets': DnsRateLimitBucketsTable;
}

// --- API tokens for the PowerDNS-compatible API (migration 202611270100_api_tokens) ---
export interface DnsApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;                        // SHA-256 hex of the token; the token itself is never stored
  zone_ids: number[] | null;                 // null: every zone the user may manage
  name_patterns: string[] | null;            // null: any name; else globs such as _acme-challenge.*
  record_types: string[] | null;             // null: any type
  created_by: number | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface DnsDatabase {
  'dns.api_tokens': DnsApiTokensTable;
}

// --- NicTool's permission objects (migration 202611282200_nictool_permissions) ---
export interface DnsPermissionsTable {
  id: Generated<number>;
  group_id: number | null;                   // a group's object (user_id null)
  user_id: number | null;                    // a user's own object (group_id null)
  name: Generated<string>;
  inherit: Generated<boolean>;
  group_create: Generated<boolean>;
  group_write: Generated<boolean>;
  group_delete: Generated<boolean>;
  user_create: Generated<boolean>;
  user_write: Generated<boolean>;
  user_delete: Generated<boolean>;
  nameserver_create: Generated<boolean>;
  nameserver_write: Generated<boolean>;
  nameserver_delete: Generated<boolean>;
  zone_create: Generated<boolean>;
  zone_write: Generated<boolean>;
  zone_delete: Generated<boolean>;
  zone_delegate: Generated<boolean>;
  zonerecord_create: Generated<boolean>;
  zonerecord_write: Generated<boolean>;
  zonerecord_delete: Generated<boolean>;
  zonerecord_delegate: Generated<boolean>;
  self_write: Generated<boolean>;
  usable_ns: Generated<number[]>;            // a user's object: nameserver ids (shown, not enforced)
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DnsDatabase {
  'dns.permissions': DnsPermissionsTable;
}

// --- Zone delegations across groups (migration 202611282300_zone_delegations) ---
export interface DnsZoneDelegationsTable {
  id: Generated<number>;
  zone_id: number;                           // the live zone whose namespace is shared
  name: string;                              // the zone allowed above or below it (absolute, lowercase)
  group_id: number;                          // the group that may hold that zone
  allowed_by: number;                        // the administrator who allowed it
  created_at: Date;
  deleted_by: number | null;
  deleted_at: Date | null;
}

export interface DnsDatabase {
  'dns.zone_delegations': DnsZoneDelegationsTable;
}

// --- TSIG keys for the DNS listener (migration 202611300500_tsig_keys) ---
export interface DnsTsigKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;                              // the key's DNS name, lowercase, no trailing dot
  algorithm: 'hmac-sha256' | 'hmac-sha512';
  secret_sealed: string;                     // AES-256-GCM: base64url(iv).base64url(tag).base64url(ciphertext)
  zone_ids: number[] | null;
  name_patterns: string[] | null;
  record_types: string[] | null;
  allow_transfer: Generated<boolean>;        // may AXFR/IXFR the zones in its scope
  created_by: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface DnsDatabase {
  'dns.tsig_keys': DnsTsigKeysTable;
}

// --- zones kept as secondaries of an outside primary (migration 202612020100_secondary_zones) ---
export interface DnsSecondaryZonesTable {
  zone_id: number;
  primary_address: string;                   // an IP address
  primary_port: Generated<number>;
  tsig_key_id: number | null;                // dns.tsig_keys: signs the SOA queries and transfers; NOTIFY signed with it is accepted
  primary_serial: ColumnType<string | null, number | null | undefined, number | null>; // int8: the primary's serial last transferred
  refresh: number | null;                    // the primary's SOA timers, as last seen
  retry: number | null;
  expire: number | null;
  next_check_at: Date;
  last_check_at: Date | null;
  last_success_at: Date | null;              // the primary last answered (a check or a transfer)
  last_transfer_at: Date | null;
  last_error: string | null;
  expired_at: Date | null;                   // set once `expire` passed without an answer: the zone is not served
  lease_until: Date | null;                  // an instance is refreshing it until then
  created_by: number | null;
  created_at: Date;
}

export interface DnsDatabase {
  'dns.secondary_zones': DnsSecondaryZonesTable;
}

// --- every serial a zone took, by transaction (migration 202612020200_zone_serial_history; written by a trigger) ---
export interface DnsZoneSerialsTable {
  id: Generated<string>;                     // bigserial
  zone_id: number;
  serial: string;                            // int8
  previous: string | null;                   // int8: the serial before (null when the zone was created)
  txid: string;                              // int8: txid_current() of the writing transaction
  at: Date;
}

export interface DnsDatabase {
  'dns.zone_serials': DnsZoneSerialsTable;
}
