// `serve` (the default) and `migrate`. main.ts loads this module only for them.
import { parseCommand } from '@keyzone/config/cli';
import type { DnsConfig } from '@keyzone/config';
import { migrateDns, poolStats, waitForDatabase } from '@keyzone/db';
import type { Telemetry } from '@keyzone/telemetry';
import { createLogger } from '@keyzone/logging';
import { createApp } from '../app';
import { buildDeps } from '../deps';
import { systemClock } from '../clock';
import { listen, urlOf } from '../http/server';
import { deleteExpiredSessions } from '../queries/sessions';
import { SecondaryRefresher } from '../services/zones/secondary/refresher';
import { API_VERSION } from '../version';
import { APP_NAME, loadConfig, openDatabase } from './context';

const PRUNE_EVERY_MS = 15 * 60 * 1000;

export const SERVE_USAGE = `usage: main.js [serve]
  starts the API; settings come from config/*.yml (DNS_CONFIG_DIR) and the environment (see README.md)`;
export const MIGRATE_USAGE = `usage: main.js migrate
  applies the database migrations and exits (serve applies them too)`;

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
  // Zones kept as secondaries of outside primaries (issue 44): refreshed by every instance, a lease per zone.
  const secondaries = new SecondaryRefresher(deps);
  deps.secondaries = secondaries;
  secondaries.start();
  // dns.yml: the DNS listener (issue 44), loaded only when enabled.
  const dnsListener = config.dns.enabled ? await (await import('../dns-server/listener.js')).startDnsListener(deps) : undefined;
  if (dnsListener) log.info({ address: config.dns.address, udp: dnsListener.udpPort, tcp: dnsListener.tcpPort }, 'DNS listener started');
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
      Promise.resolve(dnsListener?.close())
        .then(() => secondaries.stop())
        .then(() => deps.publisher?.stop())
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

/** `serve` or `migrate`; --help prints the usage. */
export async function runServer(command: 'serve' | 'migrate', args: string[]): Promise<void> {
  const usage = command === 'serve' ? SERVE_USAGE : MIGRATE_USAGE;
  if (parseCommand(args, { usage, options: {} }).help) {
    console.log(usage);
    return;
  }
  return command === 'serve' ? serve() : migrate();
}
