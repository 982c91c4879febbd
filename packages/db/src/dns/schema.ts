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
