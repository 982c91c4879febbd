import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type { Dialect, LogConfig } from 'kysely';
import { Pool } from 'pg';
import type { PoolConfig } from 'pg';
import { AuthNamespacePlugin } from './namespace-plugin';
import { LazyPGliteDialect } from './pglite-dialect';
import { rememberPool, type QueryEvent } from './prepared-statements';

export interface ConnectOptions {
  /** pg pool size; 0 or undefined = node-postgres default (10). Ignored for PGlite. */
  maxPoolSize?: number;
  /** DB_NAMESPACE: `auth.<table>` is rewritten to `auth.<namespace>_<table>`. Empty = none. */
  authNamespace?: string;
  /**
   * Called when an idle pooled connection fails (server restart, terminated backend). Without a
   * listener node-postgres would crash the process; the pool replaces the connection either way.
   */
  onIdleConnectionError?: (err: Error) => void;
  /** How long a query waits for a pooled connection before failing (ms); default 10 000. */
  connectTimeoutMs?: number;
  /** Hears about every finished query (tracing: each becomes a span). */
  onQuery?: (event: QueryEvent) => void;
  /**
   * Named (server-side prepared) statements for hot reads; default true. A transaction-mode pooler (PgBouncer
   * before 1.21, Supavisor, RDS Proxy) hands each transaction another server connection, where the name is
   * unknown or already taken: turn them off there. A URL carrying `pgbouncer=true` turns them off by itself.
   */
  preparedStatements?: boolean;
}

/**
 * Removes the `pgbouncer=true` hint (the name other tools use for "behind a transaction-mode pooler") from a
 * PostgreSQL URL, since the server would refuse it as a startup parameter, and says whether it was there.
 */
export function poolerHint(url: string): { url: string; behindPooler: boolean } {
  const match = /([?&])pgbouncer=(true|1)(&|$)/i.exec(url);
  if (!match) return { url, behindPooler: false };
  const rest = url.slice(0, match.index) + (match[3] ? match[1] : '') + url.slice(match.index + match[0].length);
  return { url: rest.replace(/[?&]$/, ''), behindPooler: true };
}

export type ParsedDatabaseUrl =
  | { kind: 'postgres'; url: string }
  | { kind: 'pglite'; dataDir: string | undefined };

/** Classifies a database URL; `dataDir` is absolute (relative paths resolve against cwd), undefined = memory. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const pglite = /^pglite:\/\/(.*)$/i.exec(url);
  if (pglite) {
    const rest = pglite[1] ?? '';
    if (rest === '') throw new Error('Invalid database URL "pglite://": use pglite://memory or pglite://<dir>');
    return { kind: 'pglite', dataDir: rest === 'memory' ? undefined : path.resolve(rest) };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new Error(
    `Unsupported database URL${scheme ? ` scheme "${scheme}:"` : ''}: expected postgres://, postgresql://, ` +
      'pglite://memory or pglite://<dir>',
  );
}

/** Where an app keeps its embedded database when no URL is configured (outside production). */
export function defaultDatabaseUrl(appName: string): string {
  return `pglite://.data/${appName}`;
}

/**
 * A Kysely instance for `url`. PGlite opens lazily on the first query (the WASM start takes seconds);
 * `db.destroy()` ends the pool or closes PGlite.
 */
function queryLog(onQuery: ConnectOptions['onQuery']): LogConfig | undefined {
  if (!onQuery) return undefined;
  return (event) => onQuery({ sql: event.query.sql, durationMs: event.queryDurationMillis, failed: event.level === 'error' });
}

export function connect<DB>(url: string, options: ConnectOptions = {}): Kysely<DB> {
  const parsed = parseDatabaseUrl(url);
  let dialect: Dialect;
  if (parsed.kind === 'postgres') {
    // A database that does not answer must not hold requests forever: after this long waiting for a
    // connection the query fails, and the services answer 503.
    const hint = poolerHint(parsed.url);
    const config: PoolConfig = { connectionString: hint.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000 };
    if (options.maxPoolSize !== undefined && options.maxPoolSize > 0) config.max = options.maxPoolSize;
    const pool = new Pool(config);
    pool.on('error', (err) => options.onIdleConnectionError?.(err));
    // A connection that fails while checked out (a database restart in the middle of a query): the query already
    // fails with the error, and node-postgres also emits it on the client, where pg-pool keeps no listener while
    // the client is out: without this one, that second report would crash the process.
    pool.on('connect', (client) => client.on('error', () => undefined));
    // Remembered for executeNamed (prepared-statements.ts): hot reads run as named statements on this pool.
    const db = withAuthNamespace(new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryLog(options.onQuery) }), options.authNamespace);
    const named = (options.preparedStatements ?? true) && !hint.behindPooler;
    rememberPool(db as Kysely<unknown>, pool, { onQuery: options.onQuery, named });
    return db;
  } else {
    dialect = new LazyPGliteDialect({ dataDir: parsed.dataDir });
  }
  return withAuthNamespace(new Kysely<DB>({ dialect, log: queryLog(options.onQuery) }), options.authNamespace);
}

/** Installs the DB_NAMESPACE plugin when a namespace is given. */
export function withAuthNamespace<DB>(db: Kysely<DB>, namespace: string | undefined): Kysely<DB> {
  return namespace ? db.withPlugin(new AuthNamespacePlugin(namespace)) : db;
}

