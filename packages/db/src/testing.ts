// Fresh, migrated databases for tests: one per test file (call in beforeAll, destroy in afterAll).
// PostgreSQL: a new database on TEST_DATABASE_URL's server, dropped afterwards.
// PGlite: a copy of a migrated template folder (a fresh PGlite runs initdb and the migrations, which
// costs seconds; copying a data folder and starting on it skips both).
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Kysely } from 'kysely';
import { Client } from 'pg';
import { connect, withAuthNamespace } from './connect';
import { migrateAuth, migrateDns } from './migrate';
import { LazyPGliteDialect } from './pglite-dialect';
import { clonePGlite, pgliteTemplate } from './test-support/pglite-template';

export { startTcpProxy, type TcpProxy } from './test-support/tcp-proxy';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDatabaseKind = 'postgres' | 'pglite';
export type TestMigrations = 'auth' | 'dns' | 'none';

export interface CreateTestDatabaseOptions {
  /** Default: TEST_DATABASE_KIND from the environment, else 'postgres'. */
  kind?: TestDatabaseKind;
  migrate: TestMigrations;
  /** DB_NAMESPACE for the auth tables; the returned db carries the matching plugin. */
  authNamespace?: string;
}

export interface TestDatabase {
  kind: TestDatabaseKind;
  /**
   * postgres://… of the new database, or pglite://<dir> of the clone. PGlite allows one instance
   * per folder: while `db` is open, hand `db` to the code under test instead of opening `url` again.
   */
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** Closes `db` and drops the database (PostgreSQL) or deletes the folder (PGlite). */
  destroy(): Promise<void>;
}

export async function createTestDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const kind = options.kind ?? (process.env.TEST_DATABASE_KIND as TestDatabaseKind | undefined) ?? 'postgres';
  if (kind === 'postgres') return createPostgresDatabase(options);
  if (kind === 'pglite') return createPGliteDatabase(options);
  throw new Error(`Unknown test database kind "${String(kind)}": use postgres or pglite`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function runMigrations(db: Kysely<any>, options: CreateTestDatabaseOptions): Promise<void> {
  if (options.migrate === 'auth') await migrateAuth(db, { namespace: options.authNamespace });
  else if (options.migrate === 'dns') await migrateDns(db);
}

// ---- PostgreSQL -------------------------------------------------------------------------------

function serverUrl(): string {
  return process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable TEST_DATABASE_URL)';
  }
}

/** Runs one statement on the server's maintenance database; an unreachable server is a clear error. */
async function adminQuery(statement: string): Promise<void> {
  const url = serverUrl();
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    const ci = process.env.CI === 'true' ? ' (CI=true: tests needing PostgreSQL fail instead of skipping)' : '';
    throw new Error(
      `PostgreSQL for tests is unreachable at ${withoutPassword(url)}: ${(err as Error).message}. ` +
        `Start it (e.g. pg_ctlcluster 15 main start) or set TEST_DATABASE_URL${ci}.`,
      { cause: err },
    );
  }
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function createPostgresDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const name = `kz_test_${randomBytes(8).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const db = connect(url.toString(), { authNamespace: options.authNamespace, maxPoolSize: 10 });
  const destroy = async () => {
    await db.destroy();
    await adminQuery(`drop database if exists ${name} with (force)`);
  };
  try {
    await runMigrations(db, options);
  } catch (err) {
    await destroy();
    throw err;
  }
  return { kind: 'postgres', url: url.toString(), db, destroy };
}

// ---- PGlite -----------------------------------------------------------------------------------

async function createPGliteDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const namespaced = options.migrate === 'auth' && options.authNamespace;
  const template = await pgliteTemplate({
    kind: namespaced ? `auth-${options.authNamespace}` : options.migrate,
    sources: options.migrate === 'none' ? [] : [options.migrate],
    migrate: (db) => runMigrations(db, options),
  });
  const { dir, pg } = await clonePGlite(template);
  const db = withAuthNamespace(new Kysely<unknown>({ dialect: new LazyPGliteDialect(pg) }), options.authNamespace);
  const destroy = async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  return { kind: 'pglite', url: `pglite://${dir}`, db, destroy };
}
