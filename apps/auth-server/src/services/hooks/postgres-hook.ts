// A Postgres auth hook: `select "<schema>"."<function>"($1::jsonb)` in the service's database, in a transaction of
// its own with a statement timeout (GoTrue's pg-functions hooks). The function takes the payload as jsonb and
// returns jsonb. It runs as the service's database user, which needs `grant usage on schema <schema>` and
// `grant execute on function <schema>.<function>(jsonb)` (README, "Auth hooks").
import { sql } from 'kysely';
import type { AuthDb } from '../../queries/db';

export interface PostgresHookTarget {
  schema: string;
  functionName: string;
}

export async function callPostgresHook(db: AuthDb, target: PostgresHookTarget, payload: unknown, options: { timeoutMs: number }): Promise<unknown> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('statement_timeout', ${String(options.timeoutMs)}, true)`.execute(trx);
    const { rows } = await sql<{ output: unknown }>`select ${sql.id(target.schema, target.functionName)}(${JSON.stringify(payload)}::jsonb) as output`.execute(trx);
    const output = rows[0]?.output;
    // pg returns jsonb parsed; a function declared `returns json` may come back as text.
    return typeof output === 'string' ? (JSON.parse(output) as unknown) : output;
  });
}
