// Runs Kysely's Migrator inside one transaction that first takes a transaction-scoped PostgreSQL advisory
// lock, so two processes starting at once queue up instead of racing on `create schema` and `create extension`
// (Kysely's own lock table lives inside the schema, so it cannot cover creating it). The lock is released by the
// commit or rollback itself: nothing is left on a server connection, which makes migrations safe through a
// transaction-mode pooler (PgBouncer), where a session-level lock and its unlock may land on different servers.
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
/**
 * Each migration in a savepoint: a failing one is rolled back to it, so the transaction stays usable and
 * Kysely's own lock release after it (a session-level advisory unlock) still runs instead of failing on an
 * aborted transaction, hiding the real error and leaving the lock on the server connection.
 */
function inSavepoints(provider: MigrationProvider): MigrationProvider {
  return {
    async getMigrations() {
      const migrations = await provider.getMigrations();
      return Object.fromEntries(Object.entries(migrations).map(([name, migration]) => [name, {
        ...migration,
        async up(db: Kysely<any>) { // eslint-disable-line @typescript-eslint/no-explicit-any
          await sql`savepoint kz_migration`.execute(db);
          try {
            await migration.up(db);
          } catch (err) {
            await sql`rollback to savepoint kz_migration`.execute(db);
            throw err;
          }
          await sql`release savepoint kz_migration`.execute(db);
        },
      }]));
    },
  };
}

async function runMigrations(db: Kysely<unknown>, options: RunOptions): Promise<string[]> {
  // The Migrator needs a connection-bound Kysely (it calls connection() itself), which a Kysely transaction is
  // not; so the transaction is opened by hand on one pinned connection and the Migrator told not to open its own.
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    try {
      await sql`select pg_advisory_xact_lock(${LOCK_CLASS}, ${options.lockKey})`.execute(conn);
      const migrator = new Migrator({
        db: conn,
        provider: inSavepoints(options.provider),
        migrationTableSchema: options.schema,
        migrationTableName: `${options.tablePrefix}kysely_migration`,
        migrationLockTableName: `${options.tablePrefix}kysely_migration_lock`,
        disableTransactions: true,
      });
      const { error, results = [] } = await migrator.migrateToLatest();
      const failed = results.find((r) => r.status === 'Error');
      if (error !== undefined || failed) throw new MigrationFailedError(failed?.migrationName, error);
      await sql`commit`.execute(conn);
      return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
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
