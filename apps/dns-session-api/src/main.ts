#!/usr/bin/env node
// The only module that reads the environment and opens connections. Sub-commands:
//   serve (default) | migrate | version | create-user --group G --username U --password P --email E
//   --first-name F --last-name L [--admin] | import-nictool --from mysql://user:pass@host/nictool [--dry-run]
import path from 'node:path';
import { envDirsFor, exitOnConfigError, loadDnsConfig, readEnvFiles, type DnsConfig } from '@keyzone/config';
import { connect, defaultDatabaseUrl, migrateDns, poolStats, waitForDatabase, type DnsDatabase } from '@keyzone/db';
import type { Telemetry } from '@keyzone/telemetry';
import { createLogger } from '@keyzone/logging';
import { createApp } from './app';
import { parseCreateUserArgs } from './cli/create-user';
import { parseImportNicToolArgs } from './cli/import-nictool';
import { importNicTool } from './nictool/import';
import { formatSummary } from './nictool/summary';
import { openNicTool } from './nictool/source';
import { buildDeps } from './deps';
import { systemClock } from './clock';
import { ApiError } from './errors';
import { listen, urlOf } from './http/server';
import { deleteExpiredSessions } from './queries/sessions';
import { serializeLoginUser } from './serialize';
import { createUserWithGroup } from './services/directory/bootstrap';
import { API_VERSION } from './version';
import { enqueueAllZones } from './publishing/queue';

const APP_NAME = 'dns-session-api';
const PRUNE_EVERY_MS = 15 * 60 * 1000;

function loadConfig(): DnsConfig {
  try {
    // config/ sits beside dist/ and src/; DNS_CONFIG_DIR overrides it. The workspace root's .env, then the
    // app's own, lie under the environment (as for the auth server).
    const env = { ...readEnvFiles(envDirsFor(process.cwd())), ...process.env };
    return loadDnsConfig({ dir: path.join(__dirname, '..'), env });
  } catch (err) {
    return exitOnConfigError(err);
  }
}

function openDatabase(config: DnsConfig, telemetry?: Telemetry) {
  return connect<DnsDatabase>(config.database.url ?? defaultDatabaseUrl(APP_NAME), {
    preparedStatements: config.database.preparedStatements,
    onQuery: telemetry && config.telemetry.tracingEnabled ? (query) => telemetry.recordQuery(query) : undefined,
  });
}

/** telemetry.yml / TRACING_* / METRICS_* / OTEL_*: undefined when both are off. */
async function telemetryFor(config: DnsConfig): Promise<Telemetry | undefined> {
  const t = config.telemetry;
  if (!t.tracingEnabled && !t.metricsEnabled) return undefined;
  // Loaded only when enabled: the OpenTelemetry SDK alone costs ~19 MB of memory (issue 24).
  const { createTelemetry } = await import('@keyzone/telemetry');
  return createTelemetry({
    serviceName: APP_NAME,
    versionAttribute: 'dns.version',
    version: API_VERSION,
    resourceAttributes: t.resourceAttributes,
    debug: t.debug,
    tracing: { enabled: t.tracingEnabled },
    metrics: { enabled: t.metricsEnabled, exporter: t.metricsExporter, host: t.prometheusHost, port: t.prometheusPort },
  });
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ name: APP_NAME, level: config.log.level, file: config.log.file, pretty: config.env === 'development' });
  const telemetry = await telemetryFor(config);
  const db = openDatabase(config, telemetry);
  telemetry?.observePool(() => poolStats(db));
  await waitForDatabase(db, { onWait: (err) => log.warn({ err: (err as Error).message }, 'waiting for the database') });
  const applied = await migrateDns(db);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  const deps = buildDeps({ config, db, log, telemetry });
  const server = await listen(createApp(deps), config.http);
  deps.publisher?.start();
  if (deps.authTokens && config.auth.autoLinkByVerifiedEmail && (await deps.authTokens.confirmsByItself())) {
    log.warn({ authUrl: config.auth.url },
      'auth.yml auto_link_by_verified_email is refused: the auth server confirms addresses by itself (mailer_autoconfirm, or its ' +
      '/settings did not answer), so an address there proves nothing. Link users by hand (POST /user/<id>/identities).');
  }
  log.info({ url: urlOf(server), env: config.env }, `dns-session-api listening on ${urlOf(server)}`);
  const prune = setInterval(() => {
    deleteExpiredSessions(db, systemClock.now()).catch((err: unknown) => log.warn({ err }, 'session prune failed'));
  }, PRUNE_EVERY_MS);
  prune.unref();
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    clearInterval(prune);
    server.close(() => {
      Promise.resolve(deps.publisher?.stop())
        .then(() => telemetry?.shutdown())
        .then(() => db.destroy())
        .finally(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function migrate(): Promise<void> {
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    const applied = await migrateDns(db);
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await db.destroy();
  }
}

async function createUser(args: string[]): Promise<void> {
  const input = parseCreateUserArgs(args);
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const { user, group } = await createUserWithGroup({ db, clock: systemClock, config }, input);
    console.log(JSON.stringify({ user: { ...serializeLoginUser(user), is_admin: user.is_admin }, group: { id: group.id, name: group.name } }));
  } finally {
    await db.destroy();
  }
}

async function importFromNicTool(args: string[]): Promise<void> {
  const input = parseImportNicToolArgs(args);
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const source = await openNicTool(input.from);
    try {
      console.log(formatSummary(await importNicTool({ db, clock: systemClock }, source, { dryRun: input.dryRun, publish: config.publish })));
    } finally {
      await source.close();
    }
  } finally {
    await db.destroy();
  }
}

/** `publish --all [--nameserver <id>]`: queue every live zone for its nameservers (the running service publishes them). */
async function publishAll(args: string[]): Promise<void> {
  const nsIndex = args.indexOf('--nameserver');
  const nameserverId = nsIndex >= 0 ? Number(args[nsIndex + 1]) : undefined;
  if (!args.includes('--all') || (nameserverId !== undefined && !(Number.isInteger(nameserverId) && nameserverId > 0))) {
    throw new Error('usage: publish --all [--nameserver <id>]');
  }
  const config = loadConfig();
  if (!config.publish.enabled) throw new Error('publishing is off: set enabled: true in publish.yml first');
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const result = await enqueueAllZones(db, config.publish, systemClock.now(), nameserverId);
    for (const ns of result.skipped) console.log(`skipped nameserver ${ns.id} ${ns.name}: ${ns.reason}`);
    console.log(`queued ${result.queued} publish job(s); the running service publishes them at its next poll`);
  } finally {
    await db.destroy();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'migrate':
      return migrate();
    case 'version':
      console.log(API_VERSION);
      return;
    case 'create-user':
      return createUser(rest);
    case 'import-nictool':
      return importFromNicTool(rest);
    case 'publish':
      return publishAll(rest);
    default:
      throw new Error(`unknown command ${JSON.stringify(command)} (serve | migrate | version | create-user | import-nictool | publish)`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof ApiError ? `${err.statusCode} ${err.message}` : err instanceof Error ? err.message : err);
  process.exit(1);
});
