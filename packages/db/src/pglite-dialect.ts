// Kysely dialect over PGlite that opens the database on first use (connect() stays synchronous and
// cheap until a query runs) and adds savepoints, which kysely-pglite-dialect's driver lacks.
import { CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type {
  DatabaseConnection,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  TransactionSettings,
  DatabaseIntrospector,
} from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { PGlite } from '@electric-sql/pglite';
import { openPGlite } from './pglite';
import type { OpenPGliteOptions } from './pglite';

export class LazyPGliteDialect implements Dialect {
  constructor(private readonly source: OpenPGliteOptions | PGlite) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new LazyPGliteDriver(this.source);
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

function isPGlite(source: OpenPGliteOptions | PGlite): source is PGlite {
  return typeof (source as PGlite).query === 'function';
}

class LazyPGliteDriver implements Driver {
  #inner: Driver | undefined;

  constructor(private readonly source: OpenPGliteOptions | PGlite) {}

  async init(): Promise<void> {
    const pg = isPGlite(this.source) ? this.source : await openPGlite(this.source);
    this.#inner = new PGliteDialect(pg).createDriver();
    await this.#inner.init();
  }

  get inner(): Driver {
    if (!this.#inner) throw new Error('PGlite driver used before init');
    return this.#inner;
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }
  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quote(name)}`));
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quote(name)}`));
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quote(name)}`));
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }
  async destroy(): Promise<void> {
    // Closes the PGlite instance (also one handed in by the caller: the Kysely owns it).
    await this.#inner?.destroy();
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
