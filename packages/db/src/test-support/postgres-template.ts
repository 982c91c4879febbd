// Migrated PostgreSQL template databases for tests (issue 39): a test database is `CREATE DATABASE … TEMPLATE
// kz_tpl_<kind>_<hash>` (~0.2 s) instead of an empty database migrated from scratch (0.8-1.6 s on a loaded
// 2-core machine, for each of the ~200 databases a `pnpm test` makes). The hash covers the migration sources, so
// editing a migration builds a new template; templates of older sources are dropped when a new one is built.
// Building is serialised across jest workers by an advisory lock, and the template appears under its final
// name only once migrated (built as <name>_b, then renamed), so no process clones a half-built one.
import { Client } from 'pg';
import type { Kysely } from 'kysely';
import { connect } from '../connect';
import { sourceHash } from './pglite-template';

export interface PostgresTemplateSpec {
  /** Names the template, e.g. 'auth', 'auth_acme', 'dns'. */
  kind: string;
  sources: Array<'auth' | 'dns'>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  migrate: (db: Kysely<any>) => Promise<void>;
  /** The server's maintenance database URL (TEST_DATABASE_URL). */
  serverUrl: string;
}

const building = new Map<string, Promise<string>>();

/** The name of a migrated template database on the server, built when missing. */
export function postgresTemplate(spec: PostgresTemplateSpec): Promise<string> {
  let name = building.get(spec.kind);
  if (!name) {
    name = findOrBuild(spec);
    name.catch(() => building.delete(spec.kind)); // a failed build is retried by the next caller
    building.set(spec.kind, name);
  }
  return name;
}

async function findOrBuild({ kind, sources, migrate, serverUrl }: PostgresTemplateSpec): Promise<string> {
  const prefix = `kz_tpl_${kind.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_`;
  const name = `${prefix}${await sourceHash(sources, 'postgres')}`;
  const admin = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 30_000 });
  await admin.connect();
  try {
    const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      if (await exists()) return name; // another worker built it while this one waited
      const partial = `${name}_b`;
      await admin.query(`drop database if exists ${partial} with (force)`); // a build interrupted earlier
      await admin.query(`create database ${partial}`);
      const url = new URL(serverUrl);
      url.pathname = `/${partial}`;
      const db = connect(url.toString(), { maxPoolSize: 1 });
      try {
        await migrate(db);
      } finally {
        await db.destroy();
      }
      // No connections from here on: autovacuum skips it and every clone may start at once.
      await admin.query(`alter database ${partial} rename to ${name}`);
      await admin.query(`alter database ${name} with is_template true allow_connections false`);
      const stale = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1 and datname <> $2', [`${prefix}%`, name]);
      for (const { datname } of stale.rows) {
        await admin.query(`alter database ${datname} with is_template false`).catch(() => undefined);
        await admin.query(`drop database if exists ${datname}`).catch(() => undefined); // in use by a clone right now: next time
      }
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    await admin.end();
  }
}
