import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { connect, defaultDatabaseUrl, parseDatabaseUrl } from '../src';
import { createTestDatabase } from '../src/testing';

describe('parseDatabaseUrl', () => {
  test('postgres:// and postgresql:// go to node-postgres', () => {
    expect(parseDatabaseUrl('postgres://u@h:5432/d')).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/d' });
    expect(parseDatabaseUrl('postgresql://u@h/d')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/d' });
  });

  test('pglite://memory is in memory; pglite://<dir> resolves against cwd', () => {
    expect(parseDatabaseUrl('pglite://memory')).toEqual({ kind: 'pglite', dataDir: undefined });
    expect(parseDatabaseUrl('pglite://.data/auth')).toEqual({ kind: 'pglite', dataDir: path.resolve('.data/auth') });
    expect(parseDatabaseUrl('pglite:///var/lib/kz')).toEqual({ kind: 'pglite', dataDir: '/var/lib/kz' });
  });

  test('a bad scheme or an empty pglite path is a clear error', () => {
    expect(() => parseDatabaseUrl('mysql://root@localhost/db')).toThrow(
      'Unsupported database URL scheme "mysql:": expected postgres://, postgresql://, pglite://memory or pglite://<dir>',
    );
    expect(() => parseDatabaseUrl('just-a-path')).toThrow('Unsupported database URL: expected postgres://');
    expect(() => parseDatabaseUrl('pglite://')).toThrow('use pglite://memory or pglite://<dir>');
    expect(() => connect('sqlite://x.db')).toThrow('Unsupported database URL scheme "sqlite:"');
  });

  test('an invalid namespace is refused before anything connects', () => {
    expect(() => connect('pglite://memory', { authNamespace: 'Bad-Name' })).toThrow('Invalid auth namespace "Bad-Name"');
  });
});

test('defaultDatabaseUrl keeps each app under .data/', () => {
  expect(defaultDatabaseUrl('auth-server')).toBe('pglite://.data/auth-server');
});

test('pglite://<dir> creates the folder and persists across connections', async () => {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'kz-connect-'));
  const dir = path.join(parent, 'nested', 'db');
  try {
    const first = connect<unknown>(`pglite://${dir}`);
    await sql`create table kept (v text)`.execute(first);
    await sql`insert into kept values ('still here')`.execute(first);
    const again = connect<unknown>(`pglite://${dir}`);
    await expect(sql`select 1`.execute(again)).rejects.toThrow(`PGlite data folder ${dir} is already open in this process`);
    await again.destroy();
    await first.destroy();
    expect((await stat(dir)).isDirectory()).toBe(true);

    const second = connect<unknown>(`pglite://${dir}`);
    const { rows } = await sql<{ v: string }>`select v from kept`.execute(second);
    await second.destroy();
    expect(rows).toEqual([{ v: 'still here' }]);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test('createTestDatabase throws a clear error when PostgreSQL is unreachable (never skips)', async () => {
  const saved = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = 'postgres://postgres:secret@127.0.0.1:1/postgres';
  try {
    const error = await createTestDatabase({ kind: 'postgres', migrate: 'none' }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^PostgreSQL for tests is unreachable at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/postgres: /);
    expect((error as Error).message).not.toContain('secret');
  } finally {
    if (saved === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved;
  }
});

test('a connection killed in the middle of a query fails that query, not the process', async () => {
  const testDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  const db = connect<unknown>(testDb.url, { maxPoolSize: 1 });
  try {
    const marker = `keyzone_sleep_${process.pid}_${Date.now()}`;
    const sleeping = sql.raw(`select pg_sleep(60) as ${marker}`).execute(db).then(() => undefined, (e: unknown) => e as Error);
    let pid: number | undefined;
    for (let i = 0; i < 300 && pid === undefined; i++) {
      const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where query like ${`%${marker}%`} and pid <> pg_backend_pid()`.execute(testDb.db);
      pid = rows[0]?.pid;
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pid).toBeDefined();
    await sql`select pg_terminate_backend(${pid})`.execute(testDb.db);
    expect((await sleeping)?.message).toMatch(/terminat/);
    // The dead connection may answer one more query with its end before the pool drops it; then it is replaced.
    let after: unknown;
    for (let i = 0; i < 3 && after === undefined; i++) {
      after = await sql<{ one: number }>`select 1 as one`.execute(db).then((r) => r.rows, () => undefined);
    }
    expect(after).toEqual([{ one: 1 }]);
  } finally {
    await db.destroy();
    await testDb.destroy();
  }
});

test('a pooled connection killed while idle is reported, not a process crash', async () => {
  const testDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  let reported!: (err: Error) => void;
  const idleError = new Promise<Error>((resolve) => (reported = resolve));
  const db = connect<unknown>(testDb.url, { maxPoolSize: 1, onIdleConnectionError: (err) => reported(err) });
  try {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
    await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(testDb.db);
    expect((await idleError).message).toMatch(/terminat/);
    // The pool replaces the connection.
    const after = await sql<{ one: number }>`select 1 as one`.execute(db);
    expect(after.rows).toEqual([{ one: 1 }]);
  } finally {
    await db.destroy();
    await testDb.destroy();
  }
});
