// Which NicTool object became which Keyzone object (issue 14): `import-nictool` looks here first, so a second
// run over the same NicTool database changes nothing, and an operator can trace any row back to NicTool.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.nictool_imports (
      kind text not null check (kind in ('group', 'user', 'nameserver', 'zone')),
      nictool_id integer not null,
      local_id integer not null,
      imported_at timestamptz not null default now(),
      primary key (kind, nictool_id)
    )`.execute(db);
}
