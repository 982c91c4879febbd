import { sql } from 'kysely';
import { connect, executeNamed } from '../src';
import { createTestDatabase } from '../src/testing';

describe('executeNamed', () => {
  test('on PostgreSQL: the same rows as Kysely, run as a named statement prepared once per connection', async () => {
    const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
    const db = connect(database.url, { maxPoolSize: 1 }); // one connection: its prepared statements are visible
    try {
      const query = sql<{ n: number; label: string }>`select ${1}::int + 1 as n, ${'x'}::text as label`.compile(db);
      const viaKysely = (await db.executeQuery(query)).rows;
      expect(await executeNamed(db, 'kz_test_named', query)).toEqual(viaKysely);
      const again = sql<{ n: number; label: string }>`select ${41}::int + 1 as n, ${'y'}::text as label`.compile(db);
      expect(await executeNamed(db, 'kz_test_named', again)).toEqual([{ n: 42, label: 'y' }]);
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
      expect(rows.map((r) => r.name)).toEqual(['kz_test_named']);
    } finally {
      await db.destroy();
      await database.destroy();
    }
  });

  test('without a pg pool of its own (PGlite) it runs through Kysely', async () => {
    const db = connect('pglite://memory');
    try {
      const query = sql<{ n: number }>`select ${2}::int * 21 as n`.compile(db);
      expect(await executeNamed(db, 'kz_test_named', query)).toEqual([{ n: 42 }]);
    } finally {
      await db.destroy();
    }
  });
});
