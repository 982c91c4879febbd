// DB_NAMESPACE: query code names auth.users; with the plugin the rows land in auth.<ns>_users.
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { AuthNamespacePlugin, connect, migrateAuth } from '../src';
import type { AuthDatabase } from '../src';
import { createTestDatabase } from '../src/testing';
import type { TestDatabase } from '../src/testing';

describe('AuthNamespacePlugin (compiled SQL)', () => {
  // A dialect that is never connected: compile() needs no database.
  const db = new Kysely<AuthDatabase>({
    dialect: new PostgresDialect({ pool: new Pool({ max: 1 }) }),
    plugins: [new AuthNamespacePlugin('acme')],
  });
  afterAll(() => db.destroy());

  test('rewrites tables in schema auth, including qualified column references and joins', () => {
    const query = db
      .selectFrom('auth.users')
      .innerJoin('auth.identities', 'auth.identities.user_id', 'auth.users.id')
      .select(['auth.users.email', 'auth.identities.provider'])
      .compile();
    expect(query.sql).toBe(
      'select "auth"."acme_users"."email", "auth"."acme_identities"."provider" from "auth"."acme_users" ' +
        'inner join "auth"."acme_identities" on "auth"."acme_identities"."user_id" = "auth"."acme_users"."id"',
    );
  });

  test('rewrites sql.table() in raw SQL and leaves other schemas alone', () => {
    const raw = sql`select count(*) from ${sql.table('auth.sessions')}, ${sql.table('dns.zones')}`.compile(db);
    expect(raw.sql).toBe('select count(*) from "auth"."acme_sessions", "dns"."zones"');
  });
});

describe('on PostgreSQL', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase({ kind: 'postgres', migrate: 'auth', authNamespace: 'acme' });
  });
  afterAll(() => testDb.destroy());

  test('insert and select through auth.users land in auth.acme_users', async () => {
    const db = testDb.db as Kysely<AuthDatabase>;
    const inserted = await db
      .insertInto('auth.users')
      .values({ email: 'ns@example.com', aud: 'authenticated', role: 'authenticated', raw_user_meta_data: { full_name: 'N S' } })
      .returning(['id', 'created_at', 'raw_app_meta_data', 'raw_user_meta_data'])
      .executeTakeFirstOrThrow();
    expect(inserted.created_at).toBeInstanceOf(Date);
    expect(inserted.raw_app_meta_data).toEqual({});
    expect(inserted.raw_user_meta_data).toEqual({ full_name: 'N S' });

    const found = await db.selectFrom('auth.users').select('email').where('id', '=', inserted.id).executeTakeFirst();
    expect(found).toEqual({ email: 'ns@example.com' });

    // A second connection without the plugin sees the prefixed table and no plain one.
    const plain = connect<unknown>(testDb.url);
    try {
      const { rows } = await sql<{ email: string }>`select email from auth.acme_users`.execute(plain);
      expect(rows).toEqual([{ email: 'ns@example.com' }]);
      const exists = await sql<{ t: string | null }>`select to_regclass('auth.users')::text as t`.execute(plain);
      expect(exists.rows[0]?.t).toBeNull();
    } finally {
      await plain.destroy();
    }
  });

  test('connect(url, { authNamespace }) installs the same plugin', async () => {
    const db = connect<AuthDatabase>(testDb.url, { authNamespace: 'acme' });
    try {
      const row = await db.selectFrom('auth.users').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      expect(row.n).toBe('1');
    } finally {
      await db.destroy();
    }
  });

  test('migrateAuth through a namespaced connection still finds its bookkeeping', async () => {
    expect(await migrateAuth(testDb.db, { namespace: 'acme' })).toEqual([]);
  });
});
