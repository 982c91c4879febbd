// Embedded PostgreSQL (PGlite, WASM). Every instance loads the same extensions so a data directory
// written by one instance (or a dumped template) opens in another.
import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import type { Extension, PGliteOptions } from '@electric-sql/pglite';

// The contrib subpaths ship ESM-flavoured typings only ("type": "module" + *.d.ts), which TypeScript
// refuses to import from CommonJS; the runtime has a real CJS build (dist/contrib/pg_trgm.cjs).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

export const pgliteExtensions = { pg_trgm };

// node-postgres returns int8 (bigserial ids, count(*)) as strings; PGlite would return numbers or
// bigints. Strings on both drivers keep query results identical whichever URL is configured.
const parsers = { [types.INT8]: (value: string) => value };

export interface OpenPGliteOptions {
  /** Folder to persist into (created if missing); undefined = in memory. */
  dataDir?: string;
  /** A dumpDataDir() tarball to start from. */
  loadDataDir?: Blob;
}

export async function openPGlite(options: OpenPGliteOptions = {}): Promise<PGlite> {
  if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
  const pgOptions: PGliteOptions = { extensions: pgliteExtensions, parsers };
  if (options.loadDataDir) pgOptions.loadDataDir = options.loadDataDir;
  const pg = options.dataDir === undefined ? new PGlite(pgOptions) : new PGlite(options.dataDir, pgOptions);
  await pg.waitReady;
  return pg;
}
