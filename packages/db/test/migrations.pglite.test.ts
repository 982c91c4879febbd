// Migrations on embedded PGlite, and the cloned test databases built from a migrated template.
import { access } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { connect, migrateAuth, migrateDns, parseDatabaseUrl } from '../src';
import type { AuthDatabase } from '../src';
import { createTestDatabase } from '../src/testing';
import { AUTH_MIGRATIONS, AUTH_TABLES, indexesOn, tablesIn } from './helpers';

test('auth and dns migrations apply once on pglite://memory; a second run applies nothing', async () => {
  const db = connect<unknown>('pglite://memory');
  try {
    expect(await migrateAuth(db)).toEqual(AUTH_MIGRATIONS);
    expect(await migrateAuth(db)).toEqual([]);
    expect((await migrateDns(db))[0]).toBe('202611230300_create_schema');
    expect(await migrateDns(db)).toEqual([]);
    expect(await tablesIn(db, 'auth')).toEqual(AUTH_TABLES);
    expect(await indexesOn(db, 'users')).toEqual(expect.arrayContaining(['users_email_trgm_idx', 'users_full_name_trgm_idx']));
    // pg_trgm is loaded: the trigram operators work.
    const { rows } = await sql<{ s: number }>`select similarity('keyzone', 'keyzones') as s`.execute(db);
    expect(rows[0]?.s).toBeGreaterThan(0.5);
  } finally {
    await db.destroy();
  }
});

describe('createTestDatabase on PGlite', () => {
  test('clones are migrated, isolated from each other, and removed by destroy()', async () => {
    const [a, b] = [await createTestDatabase({ kind: 'pglite', migrate: 'auth' }), await createTestDatabase({ kind: 'pglite', migrate: 'auth' })];
    const dirA = parseDatabaseUrl(a.url);
    expect(dirA.kind).toBe('pglite');
    const dir = dirA.kind === 'pglite' ? dirA.dataDir : undefined;
    try {
      expect(a.kind).toBe('pglite');
      expect(await tablesIn(a.db, 'auth')).toEqual(AUTH_TABLES);
      await (a.db as Kysely<AuthDatabase>).insertInto('auth.users').values({ email: 'only-in-a@example.com' }).execute();
      const inB = await (b.db as Kysely<AuthDatabase>).selectFrom('auth.users').select('email').execute();
      expect(inB).toEqual([]);
      expect(await migrateAuth(a.db)).toEqual([]);
    } finally {
      await a.destroy();
      await b.destroy();
    }
    await expect(access(dir as string)).rejects.toThrow(/ENOENT/);
  });

  test('a namespaced clone routes auth.users to auth.<ns>_users', async () => {
    const t = await createTestDatabase({ kind: 'pglite', migrate: 'auth', authNamespace: 'tenant' });
    try {
      await (t.db as Kysely<AuthDatabase>).insertInto('auth.users').values({ email: 'ns@example.com' }).execute();
      const { rows } = await sql<{ email: string }>`select email from auth.tenant_users`.execute(t.db);
      expect(rows).toEqual([{ email: 'ns@example.com' }]);
    } finally {
      await t.destroy();
    }
  });

  test('dns and none templates', async () => {
    const dns = await createTestDatabase({ kind: 'pglite', migrate: 'dns' });
    const none = await createTestDatabase({ kind: 'pglite', migrate: 'none' });
    try {
      const schemas = async (db: Kysely<unknown>) =>
        (await sql<{ n: string }>`select nspname as n from pg_namespace where nspname in ('auth', 'dns') order by 1`.execute(db)).rows.map((r) => r.n);
      expect(await schemas(dns.db)).toEqual(['dns']);
      expect(await schemas(none.db)).toEqual([]);
    } finally {
      await dns.destroy();
      await none.destroy();
    }
  });
});
