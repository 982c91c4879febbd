// The client address of each change in the audit history (issue 24): behind trusted proxies, the address of
// the client, not the proxy's. Null for older entries and for changes made by command-line tools.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.audit_log add column ip inet`.execute(db);
}
