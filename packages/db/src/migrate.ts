// Runs Kysely's Migrator under a session-level PostgreSQL advisory lock held on one pinned
// connection, so two processes starting at once queue up instead of racing on `create schema` and
// `create extension` (Kysely's own lock table lives inside the schema, so it cannot cover creating it).
import { Migrator, sql } from 'kysely';
import type { Kysely, MigrationProvider } from 'kysely';
import { authMigrationProvider } from './auth/migrations';
import { dnsMigrationProvider } from './dns/migrations';
import { assertValidNamespace } from './namespace-plugin';

// pg_advisory_lock(int4, int4): 0x4b5a = "KZ", then one key per migration set. Lock keys are per
// database, so different databases on one server never wait for each other.
const LOCK_CLASS = 0x4b5a;
const AUTH_LOCK = 1;
const DNS_LOCK = 2;

export class MigrationFailedError extends Error {
  constructor(
    readonly migrationName: string | undefined,
    cause: unknown,
  ) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(migrationName ? `Migration ${migrationName} failed: ${detail}` : `Migrations failed: ${detail}`, { cause });
    this.name = 'MigrationFailedError';
  }
}

// Any Kysely works (Kysely<AuthDatabase>, Kysely<DnsDatabase>, with or without the namespace plugin).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKysely = Kysely<any>;

interface RunOptions {
  lockKey: number;
  schema: string;
  tablePrefix: string;
  provider: MigrationProvider;
}

/** Applies pending migrations forward; returns the names applied now (empty when up to date). */
async function runMigrations(db: Kysely<unknown>, options: RunOptions): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${LOCK_CLASS}, ${options.lockKey})`.execute(conn);
    try {
      const migrator = new Migrator({
        db: conn,
        provider: options.provider,
        migrationTableSchema: options.schema,
        migrationTableName: `${options.tablePrefix}kysely_migration`,
        migrationLockTableName: `${options.tablePrefix}kysely_migration_lock`,
      });
      const { error, results = [] } = await migrator.migrateToLatest();
      const failed = results.find((r) => r.status === 'Error');
      if (error !== undefined || failed) throw new MigrationFailedError(failed?.migrationName, error);
      return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_CLASS}, ${options.lockKey})`.execute(conn);
    }
  });
}

/**
 * Creates/updates the `auth` schema. With `namespace`, tables are `auth.<namespace>_<table>` and the
 * migration bookkeeping is `auth.<namespace>_kysely_migration`, so namespaces migrate independently.
 */
export async function migrateAuth(db: AnyKysely, options: { namespace?: string } = {}): Promise<string[]> {
  const namespace = options.namespace || undefined;
  if (namespace !== undefined) assertValidNamespace(namespace);
  return runMigrations(db, {
    lockKey: AUTH_LOCK,
    schema: 'auth',
    tablePrefix: namespace ? `${namespace}_` : '',
    provider: authMigrationProvider(namespace),
  });
}

/** Creates/updates the `dns` schema. */
export async function migrateDns(db: AnyKysely): Promise<string[]> {
  return runMigrations(db, { lockKey: DNS_LOCK, schema: 'dns', tablePrefix: '', provider: dnsMigrationProvider });
}
