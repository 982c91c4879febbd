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
import { postgresTemplate } from './test-support/postgres-template';

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

/**
 * TEST_POOLER_URL: a transaction-mode pooler (PgBouncer) in front of the TEST_DATABASE_URL server. Test
 * databases are still created and dropped directly on the server; the code under test reaches them through
 * the pooler.
 */
function poolerUrl(): string | undefined {
  return process.env.TEST_POOLER_URL || undefined;
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

/**
 * Runs one statement on the server's maintenance database. A refused connection is a clear "unreachable"
 * error at once; a slow one (a loaded machine) gets 30 s per try and three tries before it is called slow.
 */
async function adminQuery(statement: string): Promise<Array<Record<string, unknown>>> {
  const url = serverUrl();
  let client: Client | undefined;
  for (let attempt = 1; client === undefined; attempt += 1) {
    const candidate = new Client({ connectionString: url, connectionTimeoutMillis: 30_000 });
    try {
      await candidate.connect();
      client = candidate;
    } catch (err) {
      await candidate.end().catch(() => undefined);
      const refused = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' || (err as NodeJS.ErrnoException).code === 'ENOTFOUND';
      if (!refused && attempt < 3) continue;
      const ci = process.env.CI === 'true' ? ' (CI=true: tests needing PostgreSQL fail instead of skipping)' : '';
      const what = refused ? 'is unreachable' : `did not accept a connection after ${attempt} tries`;
      throw new Error(
        `PostgreSQL for tests ${what} at ${withoutPassword(url)}: ${(err as Error).message}. ` +
          `Start it (e.g. pg_ctlcluster 15 main start) or set TEST_DATABASE_URL${ci}.`,
        { cause: err },
      );
    }
  }
  try {
    return (await client.query(statement)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}

/** Test databases carry their creation time: kz_test_<unix seconds, base 36>_<random>. */
const TEST_DB_PREFIX = 'kz_test_';
const LEFTOVER_AGE_SECONDS = 3600;
let leftoversDropped: Promise<void> | undefined;

/**
 * Drops test databases an interrupted run left behind: those more than an hour old (and those named
 * before names carried a time). Once per process; a database another run is using is never that old.
 */
function dropLeftoverDatabases(): Promise<void> {
  leftoversDropped ??= (async () => {
    const rows = await adminQuery(`select datname from pg_database where datname like '${TEST_DB_PREFIX}%'`);
    const now = Math.floor(Date.now() / 1000);
    for (const { datname } of rows) {
      const name = String(datname);
      const stamp = /^kz_test_([0-9a-z]+)_[0-9a-f]+$/.exec(name)?.[1];
      const age = stamp === undefined ? Infinity : now - parseInt(stamp, 36);
      if (age > LEFTOVER_AGE_SECONDS && /^[a-z0-9_]+$/.test(name)) {
        await adminQuery(`drop database if exists ${name} with (force)`).catch(() => undefined);
      }
    }
  })().catch((err: unknown) => {
    leftoversDropped = undefined; // the server was unreachable: try again with the next database
    throw err;
  });
  return leftoversDropped;
}

async function createPostgresDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  await dropLeftoverDatabases();
  const name = `${TEST_DB_PREFIX}${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(6).toString('hex')}`;
  // A failed clone (a template dropped by a run that rebuilt it for newer migrations, say) falls back to an empty
  // database migrated below: slower, never a failed test file.
  const template = await migratedTemplate(options).catch(() => undefined);
  const cloned = template !== undefined && (await adminQuery(`create database ${name} template ${template}`).then(() => true, () => false));
  if (!cloned) await adminQuery(`create database ${name}`);
  const url = new URL(poolerUrl() ?? serverUrl());
  url.pathname = `/${name}`;
  // Through a transaction-mode pooler (TEST_POOLER_URL), the apps see the hint every pooled deployment gives.
  if (poolerUrl()) url.searchParams.set('pgbouncer', 'true');
  const db = connect(url.toString(), { authNamespace: options.authNamespace, maxPoolSize: 10 });
  const destroy = async () => {
    await db.destroy();
    await adminQuery(`drop database if exists ${name} with (force)`);
  };
  try {
    // A clone is migrated already; this only confirms it (one query) or, without a template, does the work.
    await runMigrations(db, options);
  } catch (err) {
    await destroy();
    throw err;
  }
  return { kind: 'postgres', url: url.toString(), db, destroy };
}

/**
 * The migrated template to clone (test-support/postgres-template.ts), or undefined for an empty database, or when
 * TEST_DATABASE_TEMPLATES=false (e.g. a server where the test user may not create templates).
 */
async function migratedTemplate(options: CreateTestDatabaseOptions): Promise<string | undefined> {
  if (options.migrate === 'none' || process.env.TEST_DATABASE_TEMPLATES === 'false') return undefined;
  const namespaced = options.migrate === 'auth' && options.authNamespace;
  return postgresTemplate({
    kind: namespaced ? `auth_${options.authNamespace}` : options.migrate,
    sources: [options.migrate],
    migrate: (db) => runMigrations(db, options),
    serverUrl: serverUrl(),
  });
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
