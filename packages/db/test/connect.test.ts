import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { connect, defaultDatabaseUrl, parseDatabaseUrl } from '../src';

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
