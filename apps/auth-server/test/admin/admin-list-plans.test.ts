// The listing statements must stay answerable from the indexes the admin_search migration
// creates (pg_trgm GIN on lower(email) and lower(full_name), btree on (created_at DESC, id)): if
// an expression or an ORDER BY drifts from the indexed one, PostgreSQL silently falls back to
// scanning (or sorting) the table, which only shows at a million rows. With the alternatives
// disabled, a plan still shows a Seq Scan or a Sort exactly when the index cannot serve the
// statement, whatever the (empty) table's statistics.
import { sql, type Kysely } from 'kysely';
import { createTestDatabase } from '@keyzone/db/testing';
import { userPageStatement, type UserPageQuery } from '../../src/queries/admin-users';

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'auth' });
});
afterAll(async () => {
  await database?.destroy();
});

async function plan(q: UserPageQuery, disable: string[]): Promise<string> {
  const db = database.db as Kysely<unknown>;
  return db.connection().execute(async (conn) => {
    for (const setting of disable) await sql`SELECT set_config(${setting}, 'off', false)`.execute(conn);
    const compiled = userPageStatement(q).compile(conn);
    const explained = await conn.executeQuery<{ 'QUERY PLAN': string }>({
      sql: `EXPLAIN ${compiled.sql}`,
      parameters: compiled.parameters,
      query: compiled.query,
      queryId: compiled.queryId,
    });
    return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

it('a filter is answered through both trigram GIN indexes', async () => {
  const text = await plan({ page: 1, perPage: 50, sort: 'desc', filter: 'lovelace' }, ['enable_seqscan', 'enable_indexscan']);
  expect(text).toContain('users_email_trgm_idx');
  expect(text).toContain('users_full_name_trgm_idx');
  expect(text).not.toContain('Seq Scan');
});

it.each(['desc', 'asc'] as const)('an unfiltered page (%s) walks the (created_at, id) btree without sorting', async (sort) => {
  const text = await plan({ page: 3, perPage: 50, sort }, ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']);
  expect(text).toMatch(/Index (Only )?Scan( Backward)? using users_created_at_id_idx/);
  expect(text).not.toMatch(/Sort|Seq Scan/);
});
