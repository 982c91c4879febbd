// Migrations on real PostgreSQL (TEST_DATABASE_URL): fresh database per test, dropped afterwards.
import { sql } from 'kysely';
import { connect, migrateAuth, migrateDns, MigrationFailedError } from '../src';
import { createTestDatabase } from '../src/testing';
import type { TestDatabase } from '../src/testing';
import { AUTH_MIGRATIONS, AUTH_TABLES, indexesOn, tablesIn } from './helpers';

let current: TestDatabase | undefined;
afterEach(async () => {
  await current?.destroy();
  current = undefined;
});

async function emptyDatabase(): Promise<TestDatabase> {
  current = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  return current;
}

test('auth and dns migrations apply once; a second run applies nothing', async () => {
  const { db } = await emptyDatabase();
  expect(await migrateAuth(db)).toEqual(AUTH_MIGRATIONS);
  expect(await migrateAuth(db)).toEqual([]);
  const dns = await migrateDns(db);
  expect(dns[0]).toBe('202611230300_create_schema');
  expect(await migrateDns(db)).toEqual([]);

  expect(await tablesIn(db, 'auth')).toEqual(AUTH_TABLES);
  expect(await indexesOn(db, 'users')).toEqual(
    expect.arrayContaining([
      'users_email_partial_key',
      'users_phone_key',
      'users_email_trgm_idx',
      'users_full_name_trgm_idx',
      'users_created_at_id_idx',
      'confirmation_token_idx',
    ]),
  );
  expect(await indexesOn(db, 'refresh_tokens')).toEqual(
    expect.arrayContaining(['refresh_tokens_token_unique', 'refresh_tokens_session_id_revoked_idx', 'refresh_tokens_parent_idx']),
  );
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(db);
  expect(rows[0]?.n).toBe(1);
});

test('two migrators starting at once on a fresh database both succeed and apply each migration once', async () => {
  const { url } = await emptyDatabase();
  const first = connect<unknown>(url);
  const second = connect<unknown>(url);
  try {
    const [a, b] = await Promise.all([migrateAuth(first), migrateAuth(second)]);
    expect([...a, ...b].sort()).toEqual(AUTH_MIGRATIONS);
    const [c, d] = await Promise.all([migrateDns(first), migrateDns(second)]);
    expect([...c, ...d]).toContain('202611230300_create_schema');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from auth.kysely_migration`.execute(first);
    expect(rows[0]?.n).toBe(AUTH_MIGRATIONS.length);
    // The session-level advisory lock was released: nobody in this database still holds one.
    const locks = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks
      where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`.execute(first);
    expect(locks.rows[0]?.n).toBe(0);
  } finally {
    await Promise.all([first.destroy(), second.destroy()]);
  }
});

test('a failing migration names itself and rolls the whole run back', async () => {
  const { db } = await emptyDatabase();
  await sql`create schema auth`.execute(db);
  await sql`create table auth.email_send_log (id int)`.execute(db);
  const error = await migrateAuth(db).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(MigrationFailedError);
  expect((error as Error).message).toMatch(/^Migration 202611230204_email_send_log failed: relation "email_send_log" already exists/);
  // The whole run is one transaction: the earlier migrations, and even the bookkeeping table, rolled back too.
  const table = await sql<{ t: string | null }>`select to_regclass('auth.kysely_migration')::text as t`.execute(db);
  expect(table.rows[0]?.t).toBeNull();
  expect(await migrateAuth(db).catch((err: unknown) => err)).toBeInstanceOf(MigrationFailedError);
});

test('namespaced migrations create auth.<ns>_<table> beside the plain ones', async () => {
  const { db } = await emptyDatabase();
  await migrateAuth(db);
  expect(await migrateAuth(db, { namespace: 'tenant_a' })).toEqual(AUTH_MIGRATIONS);
  expect(await migrateAuth(db, { namespace: 'tenant_a' })).toEqual([]);
  const tables = await tablesIn(db, 'auth');
  expect(tables).toEqual(expect.arrayContaining(['users', 'tenant_a_users', 'tenant_a_refresh_tokens', 'tenant_a_kysely_migration']));
  expect(await indexesOn(db, 'tenant_a_users')).toContain('tenant_a_users_email_partial_key');
});
