import path from 'node:path';
import type { Server } from 'node:http';
import { loadDnsConfig, type DnsConfig } from '@keyzone/config';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { createLogger } from '@keyzone/logging';
import { createApp } from '../../src/app';
import { buildDeps, type Deps } from '../../src/deps';
import { type Clock } from '../../src/clock';
import { close, listen, urlOf } from '../../src/http/server';
import { insertGroup } from '../../src/queries/groups';
import { createUserWithGroup } from '../../src/services/directory/bootstrap';
import { hashPassword } from '../../src/services/access/passwords';
import { insertUser } from '../../src/queries/users';
import { CookieClient } from './client';

export const APP_DIR = path.join(__dirname, '..', '..');
export const PASSWORD = 'Wh@tA-Decent#P6ssw0rd';

/** A clock tests move by hand. */
export class TestClock implements Clock {
  private current = new Date();
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export interface TestServer {
  url: string;
  deps: Deps;
  config: DnsConfig;
  clock: TestClock;
  database: TestDatabase;
  client(): CookieClient;
  /** A root group (created when missing) with a user in it. */
  seedUser(input: { group: string; username: string; isAdmin?: boolean; password?: string; email?: string }): Promise<{ userId: number; groupId: number }>;
  /** A group below `parentId` with a user in it. */
  seedSubgroupUser(input: { parentId: number; group: string; username: string; isAdmin?: boolean }): Promise<{ userId: number; groupId: number }>;
  /** Signs in a fresh client as user@group. */
  login(login: string, password?: string): Promise<CookieClient>;
  close(): Promise<void>;
}

export interface StartOptions {
  kind?: 'postgres' | 'pglite';
  nodeEnv?: 'test' | 'production' | 'development';
  /** Extra environment for loadDnsConfig (e.g. DNS_CONFIG_DIR); DATABASE_URL is set to the test database. */
  env?: Record<string, string>;
  /** Reuse a database (its owner destroys it). */
  database?: TestDatabase;
  /** auth.yml settings for this server (the auth server's tokens). */
  auth?: Partial<DnsConfig['auth']>;
  /** security.yml settings (tests log in often from 127.0.0.1: the login limits are off unless given here). */
  security?: Partial<DnsConfig['security']>;
  /** publish.yml settings for this server (zone publishing). */
  publish?: Partial<DnsConfig['publish']>;
  /** quotas.yml settings for this server. */
  quotas?: Partial<DnsConfig['quotas']>;
  /** Lets a test change the deps (telemetry, a traced connection) before the app is built. */
  configure?: (deps: Deps) => Deps;
}

/** A migrated fresh database, the app built from real deps, listening on 127.0.0.1 on a random port. */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const nodeEnv = options.nodeEnv ?? 'test';
  const database = options.database ?? (await createTestDatabase({ kind: options.kind, migrate: 'dns' }));
  const ownsDatabase = !options.database;
  const env: Record<string, string> = { DATABASE_URL: database.url, ...options.env };
  if (nodeEnv === 'production') env.SESSION_SECRET ??= 'a-production-test-secret-of-forty-characters';
  const loaded = loadDnsConfig({ dir: APP_DIR, nodeEnv, env });
  const config: DnsConfig = {
    ...loaded,
    auth: { ...loaded.auth, ...options.auth },
    publish: { ...loaded.publish, ...options.publish },
    quotas: { ...loaded.quotas, ...options.quotas },
  };
  const clock = new TestClock();
  const log = createLogger({ name: 'dns-session-api-test', level: process.env.DEBUG_TEST_LOGS ? 'debug' : 'silent' });
  const built = buildDeps({ config: { ...config, security: { bcryptCost: 4, loginAttemptsPerClient: 0, loginAttemptsPerAccount: 0, loginsPerClient: 0, ...options.security } }, db: database.db, log, clock });
  const deps = options.configure ? options.configure(built) : built;
  const server: Server = await listen(createApp(deps), { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: config.http.keepAliveTimeoutSeconds });
  const url = urlOf(server);

  const seedUser: TestServer['seedUser'] = async (input) => {
    const { user, group } = await createUserWithGroup(deps, {
      group: input.group,
      username: input.username,
      password: input.password ?? PASSWORD,
      email: input.email ?? `${input.username}@example.com`,
      firstName: 'First',
      lastName: 'Last',
      isAdmin: input.isAdmin ?? false,
    });
    return { userId: user.id, groupId: group.id };
  };

  const seedSubgroupUser: TestServer['seedSubgroupUser'] = async (input) => {
    const group = await insertGroup(deps.db, { parentId: input.parentId, name: input.group, now: clock.now() });
    const user = await insertUser(deps.db, {
      groupId: group.id,
      username: input.username,
      email: `${input.username}@example.com`,
      firstName: 'Sub',
      lastName: 'User',
      passwordHash: await hashPassword(PASSWORD, 4),
      isAdmin: input.isAdmin ?? false,
      now: clock.now(),
    });
    return { userId: user.id, groupId: group.id };
  };

  const login: TestServer['login'] = async (loginName, password = PASSWORD) => {
    const client = new CookieClient(url);
    const res = await client.post('/session', { username: loginName, password });
    if (res.status !== 200) throw new Error(`login as ${loginName} failed: ${res.status} ${res.text}`);
    return client;
  };

  return {
    url,
    deps,
    config,
    clock,
    database,
    client: () => new CookieClient(url),
    seedUser,
    seedSubgroupUser,
    login,
    async close() {
      await close(server);
      if (ownsDatabase) await database.destroy();
    },
  };
}
