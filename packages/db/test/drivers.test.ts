// The same behaviour on both drivers: error helpers, RLS helpers, value types.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { connect, isSerializationOrLockError, isUniqueViolation, pgErrorCode } from '../src';
import type { AuthDatabase } from '../src';
import { createTestDatabase } from '../src/testing';
import type { TestDatabase, TestDatabaseKind } from '../src/testing';

test('error helpers look only at the SQLSTATE and constraint', () => {
  expect(isUniqueViolation(new Error('x'))).toBe(false);
  expect(isUniqueViolation(null)).toBe(false);
  expect(isUniqueViolation({ code: '23505', constraint: 'tenant_users_phone_key' }, 'users_phone_key')).toBe(true);
  expect(isUniqueViolation({ code: '23505', constraint: 'users_phone_key' }, 'phone_key')).toBe(true);
  expect(isUniqueViolation({ code: '23505' }, 'users_phone_key')).toBe(false);
  for (const code of ['55P03', '40001', '40P01']) expect(isSerializationOrLockError({ code })).toBe(true);
  expect(isSerializationOrLockError({ code: '23505' })).toBe(false);
  expect(pgErrorCode({ code: 42 })).toBeUndefined();
});

describe.each<TestDatabaseKind>(['postgres', 'pglite'])('%s', (kind) => {
  let testDb: TestDatabase;
  let db: Kysely<AuthDatabase>;
  beforeAll(async () => {
    testDb = await createTestDatabase({ kind, migrate: 'auth' });
    db = testDb.db;
  });
  afterAll(() => testDb.destroy());

  const insertUser = (email: string) =>
    db.insertInto('auth.users').values({ email, aud: 'authenticated', role: 'authenticated' }).returning('id').executeTakeFirstOrThrow();

  test('isUniqueViolation recognises a duplicate email and names its index', async () => {
    await insertUser('dup@example.com');
    const err = await insertUser('dup@example.com').catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(err, 'users_email_partial_key')).toBe(true);
    expect(isUniqueViolation(err, 'users_phone_key')).toBe(false);
    expect(isSerializationOrLockError(err)).toBe(false);
  });

  test('one_time_tokens allow one token per user and type', async () => {
    const { id } = await insertUser('ott@example.com');
    const row = { user_id: id, token_type: 'recovery_token' as const, token_hash: 'abc', relates_to: 'ott@example.com' };
    await db.insertInto('auth.one_time_tokens').values(row).execute();
    const err = await db.insertInto('auth.one_time_tokens').values(row).execute().catch((e: unknown) => e);
    expect(isUniqueViolation(err, 'one_time_tokens_user_id_token_type_key')).toBe(true);
  });

  test('RLS helpers read request.jwt.claims', async () => {
    const sub = '5f1c7b5e-2a62-4c8e-9d55-1d7c2f1c3a10';
    const claims = JSON.stringify({ sub, role: 'authenticated', email: 'rls@example.com', aal: 'aal1' });
    const row = await db.transaction().execute(async (trx) => {
      await sql`select set_config('request.jwt.claims', ${claims}, true)`.execute(trx);
      const { rows } = await sql<{ uid: string; role: string; email: string; jwt: { aal: string } }>`
        select auth.uid() as uid, auth.role() as role, auth.email() as email, auth.jwt() as jwt`.execute(trx);
      return rows[0];
    });
    expect(row).toEqual({ uid: sub, role: 'authenticated', email: 'rls@example.com', jwt: expect.objectContaining({ aal: 'aal1' }) });
    // Outside the transaction the setting is gone again.
    const { rows } = await sql<{ uid: string | null }>`select auth.uid() as uid`.execute(db);
    expect(rows[0]?.uid).toBeNull();
  });

  test('values come back alike: Date timestamps, parsed jsonb, int8 as string, generated columns', async () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const user = await db
      .insertInto('auth.users')
      .values({ email: 'types@example.com', email_confirmed_at: now, raw_app_meta_data: { provider: 'email', providers: ['email'] } })
      .returning(['id', 'confirmed_at', 'raw_app_meta_data', 'is_anonymous'])
      .executeTakeFirstOrThrow();
    expect(user.confirmed_at).toEqual(now);
    expect(user.raw_app_meta_data).toEqual({ provider: 'email', providers: ['email'] });
    expect(user.is_anonymous).toBe(false);

    const logged = await db
      .insertInto('auth.email_send_log')
      .values({ user_id: user.id, kind: 'confirmation', recipient: 'types@example.com' })
      .returning(['id', 'sent_at'])
      .executeTakeFirstOrThrow();
    expect(typeof logged.id).toBe('string');
    expect(logged.sent_at).toBeInstanceOf(Date);

    const identity = await db
      .insertInto('auth.identities')
      .values({ provider_id: user.id, user_id: user.id, provider: 'email', identity_data: { sub: user.id, email: 'Types@Example.com' } })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow();
    expect(identity.email).toBe('types@example.com');
  });

  test('nested transactions use savepoints', async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto('auth.users').values({ email: 'outer@example.com' }).execute();
    const inner = await trx.savepoint('inner').execute();
    await inner.insertInto('auth.users').values({ email: 'inner@example.com' }).execute();
    await inner.rollbackToSavepoint('inner').execute();
    await trx.commit().execute();
    const emails = await db.selectFrom('auth.users').select('email').where('email', 'in', ['outer@example.com', 'inner@example.com']).execute();
    expect(emails).toEqual([{ email: 'outer@example.com' }]);
  });
});

test('postgres: a NOWAIT lock conflict is a serialization-or-lock error', async () => {
  const testDb = await createTestDatabase({ kind: 'postgres', migrate: 'auth' });
  const other = connect<AuthDatabase>(testDb.url);
  try {
    const db = testDb.db as Kysely<AuthDatabase>;
    const { id } = await db.insertInto('auth.users').values({ email: 'lock@example.com' }).returning('id').executeTakeFirstOrThrow();
    let conflict: unknown;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('auth.users').select('id').where('id', '=', id).forUpdate().execute();
      conflict = await other
        .selectFrom('auth.users')
        .select('id')
        .where('id', '=', id)
        .forUpdate()
        .noWait()
        .execute()
        .catch((e: unknown) => e);
    });
    expect(pgErrorCode(conflict)).toBe('55P03');
    expect(isSerializationOrLockError(conflict)).toBe(true);
  } finally {
    await other.destroy();
    await testDb.destroy();
  }
});
