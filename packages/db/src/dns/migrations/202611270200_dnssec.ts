// DNSSEC per zone (issue 32): signed by the nameservers that serve it (PowerDNS through its API, BIND with a
// dnssec-policy); off by default, a group's dnssec_default the default for its new zones.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.zones add column dnssec boolean not null default false`.execute(db);
  await sql`alter table dns.groups add column dnssec_default boolean not null default false`.execute(db);
}
