import { sql } from 'kysely';
import { connect, executeNamed, poolerHint } from '../src';
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

describe('behind a transaction-mode pooler', () => {
  test('poolerHint takes pgbouncer=true off the URL and reports it', () => {
    expect(poolerHint('postgres://u@h:6432/db?pgbouncer=true')).toEqual({ url: 'postgres://u@h:6432/db', behindPooler: true });
    expect(poolerHint('postgres://u@h/db?sslmode=require&pgbouncer=true&x=1')).toEqual({ url: 'postgres://u@h/db?sslmode=require&x=1', behindPooler: true });
    expect(poolerHint('postgres://u@h/db?pgbouncer=false')).toEqual({ url: 'postgres://u@h/db?pgbouncer=false', behindPooler: false });
  });

  test.each([
    ['preparedStatements: false', (url: string) => connect(url, { maxPoolSize: 1, preparedStatements: false })],
    ['?pgbouncer=true', (url: string) => connect(`${url}?pgbouncer=true`, { maxPoolSize: 1 })],
  ])('%s: executeNamed sends the statement unnamed (nothing prepared on the server)', async (_label, open) => {
    const database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
    const db = open(database.url.split('?')[0] ?? '');
    try {
      const query = sql<{ n: number }>`select ${20}::int + 22 as n`.compile(db);
      expect(await executeNamed(db, 'kz_test_unnamed', query)).toEqual([{ n: 42 }]);
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
      expect(rows).toEqual([]);
    } finally {
      await db.destroy();
      await database.destroy();
    }
  });
});
