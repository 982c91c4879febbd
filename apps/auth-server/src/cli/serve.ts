// `serve` (the default) and `migrate`: the only commands that read the whole configuration and open the database;
// they build deps and hand them to createApp. main.ts loads this module only for them.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { exitOnConfigError, type AuthConfig } from '@keyzone/config';
import { parseCommand } from '@keyzone/config/cli';
import { connect, databaseProblem, migrateAuth, poolStats, waitForDatabase, type AuthDatabase } from '@keyzone/db';
import type { Telemetry } from '@keyzone/telemetry';
import { createLogger } from '@keyzone/logging';
import { createJwtService } from '@keyzone/tokens';
import { createApp } from '../app';
import { createMailer } from '../mail/mailer';
import { checkSmtpHost } from '../mail/smtp-host-check';
import { loggerOptions, readConfig } from '../config';
import { type Deps } from '../deps';
import { systemClock } from '../clock';
import { createSmsSender } from '../services/phone/providers';
import { startHousekeeping } from '../services/platform/housekeeping';
import { VERSION } from '../version';
import { applyMemoryFlags } from '../memory';

export const SERVE_USAGE = `usage: main.js [serve]
  starts the server; every setting comes from the environment (AUTH_*, see README.md)`;
export const MIGRATE_USAGE = `usage: main.js migrate
  applies the database migrations and exits (serve applies them too)`;

/**
 * The pool, migrated. A database that is missing, refuses us, or stays unreachable for DB_WAIT_TIMEOUT stops the
 * process with one line naming the problem (issue 39), as in the DNS API, instead of a stack and the pg error object.
 */
async function openDatabase(config: AuthConfig, log: Logger, telemetry?: Telemetry) {
  const db = connect<AuthDatabase>(config.db.url, {
    maxPoolSize: config.db.maxPoolSize,
    authNamespace: config.db.namespace,
    preparedStatements: config.db.preparedStatements,
    onQuery: telemetry && config.tracing.enabled ? (query) => telemetry.recordQuery(query) : undefined,
  });
  try {
    await waitForDatabase(db, {
      timeoutMs: config.db.waitTimeout * 1000,
      onWait: (err) => log.warn({ err: databaseProblem(err) ?? (err as Error).message }, 'waiting for the database'),
    });
    const applied = await migrateAuth(db, { namespace: config.db.namespace });
    return { db, applied };
  } catch (err) {
    const problem = databaseProblem(err);
    if (problem === undefined) throw err;
    await db.destroy().catch(() => undefined);
    console.error(`auth-server: cannot use the database: ${problem}`);
    process.exit(1);
  }
}

/** TRACING_* / METRICS_* / OTEL_*: undefined when both are off. */
async function telemetryFor(config: AuthConfig): Promise<Telemetry | undefined> {
  if (!config.tracing.enabled && !config.metrics.enabled) return undefined;
  // Loaded only when enabled: the OpenTelemetry SDK alone costs ~19 MB of memory (issue 24).
  const { createTelemetry } = await import('@keyzone/telemetry');
  return createTelemetry({
    serviceName: 'auth-server',
    versionAttribute: 'auth.version',
    version: VERSION,
    resourceAttributes: config.tracing.resourceAttributes,
    debug: config.tracing.debug,
    tracing: { enabled: config.tracing.enabled },
    metrics: { enabled: config.metrics.enabled, exporter: config.metrics.exporter, host: config.metrics.prometheusHost, port: config.metrics.prometheusPort },
  });
}

/** `serve` or `migrate`: --help prints the usage; the configuration, the database, then the server or nothing. */
export async function runServer(command: 'serve' | 'migrate', args: string[]): Promise<void> {
  const usage = command === 'serve' ? SERVE_USAGE : MIGRATE_USAGE;
  if (parseCommand(args, { usage, options: {} }).help) {
    console.log(usage);
    return;
  }
  if (command === 'serve') applyMemoryFlags();
  let config: AuthConfig;
  try {
    config = readConfig(process.env, process.cwd());
  } catch (err) {
    exitOnConfigError(err);
  }
  const log = createLogger(loggerOptions(process.env, config));
  const telemetry = command === 'serve' ? await telemetryFor(config) : undefined;

  const { db, applied } = await openDatabase(config, log, telemetry);
  telemetry?.observePool(() => poolStats(db));
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  if (command === 'migrate') {
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    await db.destroy();
    return;
  }

  const jwt = await createJwtService({
    secret: config.jwt.secret,
    keys: config.jwt.keys as object[] | undefined,
    issuer: config.jwt.issuer,
    clock: systemClock.now,
  });
  // Mail goes over SMTP when SMTP_HOST is set; otherwise it is logged (development) or refused (production).
  const mailer = createMailer({ config, log, production: process.env.NODE_ENV === 'production', db, onSent: () => telemetry?.count('emails_sent') });
  await checkSmtpHost(config.smtp.host, log);
  mailer.outbox?.start();
  const deps: Deps = { config, db, jwt, mailer, sms: createSmsSender(config.sms), clock: systemClock, log, telemetry };
  const app = createApp(deps);
  const stopHousekeeping = startHousekeeping(deps);
  // Like the DNS API: every interface in production (containers), only this machine otherwise.
  const bindHost = config.api.host ?? (process.env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
  const server: Server = app.listen(config.api.port, bindHost, (err?: Error) => {
    // Express 5 calls this on a failed listen too: a taken port must stop the process, loudly.
    if (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'the port is already in use' : err.message;
      console.error(`auth-server: cannot listen on ${bindHost}:${config.api.port}: ${reason}`);
      process.exit(1);
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.api.port;
    // Through the logger, so production writes it as JSON like every other line.
    log.info({ url: `http://${bindHost}:${port}`, externalUrl: config.api.externalUrl, version: VERSION }, `auth-server ${VERSION} listening on http://${bindHost}:${port}`);
  });

  // Graceful stop: refuse new connections, let in-flight requests finish, then close the pool.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    stopHousekeeping();
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server.close(() => {
      mailer
        .close()
        .then(() => telemetry?.shutdown())
        .then(() => db.destroy())
        .catch((err: unknown) => log.error({ err }, 'closing the database failed'))
        .finally(() => process.exit(0));
    });
    // Keep-alive sockets become idle once their in-flight response is done: close them as they do.
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), 200).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
