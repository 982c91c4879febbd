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
import { claimPGliteFolder } from './pglite-folder-lock';
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

// Two PGlite instances on one folder corrupt it. Within a process we refuse clearly (e.g. main.ts
// migrating through one connect() and serving through another on the same URL); across processes
// a lock file does (claimPGliteFolder).
const openDirs = new Set<string>();

class LazyPGliteDriver implements Driver {
  #inner: Driver | undefined;
  #claimedDir: string | undefined;
  #releaseFolderLock: (() => void) | undefined;

  constructor(private readonly source: OpenPGliteOptions | PGlite) {}

  async init(): Promise<void> {
    let pg: PGlite;
    if (isPGlite(this.source)) {
      pg = this.source;
    } else {
      const dir = this.source.dataDir;
      if (dir !== undefined) {
        if (openDirs.has(dir)) {
          throw new Error(`PGlite data folder ${dir} is already open in this process: share one Kysely instance (or destroy the first)`);
        }
        openDirs.add(dir);
        this.#claimedDir = dir;
      }
      try {
        if (dir !== undefined) this.#releaseFolderLock = claimPGliteFolder(dir);
        pg = await openPGlite(this.source);
      } catch (err) {
        this.#release();
        throw err;
      }
    }
    this.#inner = new PGliteDialect(pg).createDriver();
    await this.#inner.init();
  }

  #release(): void {
    this.#releaseFolderLock?.();
    this.#releaseFolderLock = undefined;
    if (this.#claimedDir !== undefined) openDirs.delete(this.#claimedDir);
    this.#claimedDir = undefined;
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
    try {
      await this.#inner?.destroy();
    } finally {
      this.#release();
    }
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
