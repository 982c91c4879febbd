// startTestServer: the real app on 127.0.0.1:<random port>, over a fresh database from
// @keyzone/db/testing (PostgreSQL by default, or a PGlite clone), with a TestClock and bcrypt
// cost 4. Each call gets its own database; close() stops the server and drops it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { loadAuthConfig } from '@keyzone/config';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createTestDatabase } from '@keyzone/db/testing';
import { createJwtService } from '@keyzone/tokens';
import { createApp } from '../../src/app';
import type { Deps } from '../../src/deps';
import type { AuthDb } from '../../src/queries/db';
import { createSmsSender } from '../../src/services/phone/providers';
import { TestClock } from './test-clock';

export const TEST_JWT_SECRET = 'test-secret-at-least-32-characters-long!!';

/**
 * Idle keep-alive connections stay open for the whole test (issue 39). With Node's default of 5 s the server closes
 * an idle connection while the test's fetch (undici) may be sending its next request on it: on a loaded machine
 * undici's own expiry check runs late, the request meets the server's FIN, and the test fails with "fetch failed:
 * read ECONNRESET" (seen in saml-admin.test.ts under `pnpm test`). close() still ends every connection at once.
 */
const TEST_KEEP_ALIVE_MS = 10 * 60 * 1000;

export interface TestServer {
  url: string;
  deps: Deps;
  clock: TestClock;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Settings by their unprefixed or AUTH_-prefixed names; they win over the test defaults. */
  env?: Record<string, string | undefined>;
  kind?: 'postgres' | 'pglite';
  /** Lets a test wire a mailer (or other deps) before the app is built. */
  configure?: (deps: Deps) => Deps | Promise<Deps>;
  /** Listen on this port (default: any free one), for settings that must name the server's own URL. */
  port?: number;
}

function prefixed(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) out[name.startsWith('AUTH_') || name.startsWith('GOTRUE_') ? name : `AUTH_${name}`] = value;
  return out;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const namespace = options.env?.DB_NAMESPACE ?? options.env?.AUTH_DB_NAMESPACE;
  const database = await createTestDatabase({ kind: options.kind ?? 'postgres', migrate: 'auth', authNamespace: namespace });
  const clock = new TestClock();
  const env = prefixed({
    SITE_URL: 'http://localhost:3000',
    API_EXTERNAL_URL: 'http://localhost:9999',
    DATABASE_URL: database.url,
    JWT_SECRET: TEST_JWT_SECRET,
    BCRYPT_COST: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'fatal',
    // Every request of a test comes from 127.0.0.1: the shared limits get their own tests.
    RATE_LIMIT_VERIFY: '100000',
    RATE_LIMIT_TOKEN_REFRESH: '100000',
    RATE_LIMIT_ANONYMOUS_USERS: '100000',
    RATE_LIMIT_OTP: '100000',
    RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '100000',
    RATE_LIMIT_EMAIL_SENT_PER_ADDRESS: '100000',
    MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '100000',
    RATE_LIMIT_SMS_SENT_PER_NUMBER: '100000',
    RATE_LIMIT_SMS_SENT_PER_CLIENT: '100000',
    RATE_LIMIT_SMS_SENT_PER_USER: '100000',
    ...options.env,
  });
  let config;
  let jwt;
  try {
    config = loadAuthConfig({ env, cwd: path.join(__dirname, '..') });
    jwt = await createJwtService({
      secret: config.jwt.secret,
      keys: config.jwt.keys as object[] | undefined,
      issuer: config.jwt.issuer,
      clock: () => clock.now(),
    });
  } catch (err) {
    // A test of a bad setting must not leave its database (and the pool that keeps jest alive) behind.
    await database.destroy();
    throw err;
  }
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let deps: Deps = { config, db: database.db as AuthDb, jwt, mailer: undefined, sms: createSmsSender(config.sms), clock, log };
  if (options.configure) deps = await options.configure(deps);
  const app = createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = TEST_KEEP_ALIVE_MS;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    clock,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.mailer?.close();
      await database.destroy();
    },
  };
}

/** A second instance of `of`'s app (same settings and clock) on its own pool of the same database. */
export async function secondInstance(of: TestServer): Promise<{ url: string; close(): Promise<void> }> {
  const db2 = connect<AuthDatabase>(of.deps.config.db.url);
  const second: Server = await new Promise((resolve) => {
    const s = createApp({ ...of.deps, db: db2 }).listen(0, '127.0.0.1', () => resolve(s));
  });
  second.keepAliveTimeout = TEST_KEEP_ALIVE_MS;
  return {
    url: `http://127.0.0.1:${(second.address() as AddressInfo).port}`,
    async close() {
      second.closeAllConnections();
      await new Promise((resolve) => second.close(resolve));
      await db2.destroy();
    },
  };
}
