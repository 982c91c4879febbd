// Fresh, migrated databases for tests: one per test file (call in beforeAll, destroy in afterAll).
// PostgreSQL: a new database on TEST_DATABASE_URL's server, dropped afterwards.
// PGlite: a clone of a migrated template built once per process (a fresh PGlite + migrations costs
// seconds; loading a dumped data dir skips initdb and the migrations).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kysely } from 'kysely';
import { Client } from 'pg';
import { connect, withAuthNamespace } from './connect';
import { migrateAuth, migrateDns } from './migrate';
import { openPGlite } from './pglite';
import { LazyPGliteDialect } from './pglite-dialect';

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

const templates = new Map<string, Promise<Blob>>();

/**
 * The migrated data dir as a tarball. Jest gives every test file a fresh module registry, so besides
 * the in-process cache the tarball is kept in the OS temp folder under a hash of the migration
 * sources and the PGlite version: the first test file (of any run) builds it, the others load it.
 */
function template(options: CreateTestDatabaseOptions): Promise<Blob> {
  const key = `${options.migrate}:${options.authNamespace ?? ''}`;
  let blob = templates.get(key);
  if (!blob) {
    blob = cachedTemplate(options);
    blob.catch(() => templates.delete(key)); // a failed build is retried by the next caller
    templates.set(key, blob);
  }
  return blob;
}

async function cachedTemplate(options: CreateTestDatabaseOptions): Promise<Blob> {
  const file = path.join(os.tmpdir(), 'keyzone-pglite-templates', `${await templateKey(options)}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const blob = await buildTemplate(options);
    // Write then rename, so a concurrent reader never sees half a file.
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await rename(partial, file);
    return blob;
  }
}

async function templateKey(options: CreateTestDatabaseOptions): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`${options.migrate}:${options.authNamespace ?? ''}:pglite ${pgliteVersion()}\n`);
  for (const dir of [path.join(__dirname, 'auth', 'migrations'), path.join(__dirname, 'dns', 'migrations')]) {
    for (const name of (await readdir(dir)).sort()) {
      if (/\.(ts|js)$/.test(name) && !name.endsWith('.d.ts')) hash.update(name).update(await readFile(path.join(dir, name)));
    }
  }
  return hash.digest('hex').slice(0, 24);
}

function pgliteVersion(): string {
  const main = require.resolve('@electric-sql/pglite');
  const pkg = JSON.parse(readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

async function buildTemplate(options: CreateTestDatabaseOptions): Promise<Blob> {
  const pg = await openPGlite();
  const db = new Kysely<unknown>({ dialect: new LazyPGliteDialect(pg) });
  try {
    await runMigrations(db, options);
    return await pg.dumpDataDir('none');
  } finally {
    await db.destroy();
  }
}

async function createPGliteDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const blob = await template(options);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kz-pglite-'));
  try {
    const pg = await openPGlite({ dataDir: dir, loadDataDir: blob });
    const db = withAuthNamespace(new Kysely<unknown>({ dialect: new LazyPGliteDialect(pg) }), options.authNamespace);
    const destroy = async () => {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    };
    return { kind: 'pglite', url: `pglite://${dir}`, db, destroy };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
