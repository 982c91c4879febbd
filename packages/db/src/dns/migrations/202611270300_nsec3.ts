// NSEC3 for signed zones (issue 32): authenticated denial without listing the zone's names (RFC 5155, with
// RFC 9276's parameters: no extra iterations, no salt).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.zones add column nsec3 boolean not null default false`.execute(db);
}
