// Issue 11: the executable itself. A taken port stops it with a non-zero exit naming the port
// (Express 5 calls the listen callback with the error; it used to print "listening" and exit 0).
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { call } from '../helpers/http';
import { startTestServer, TEST_JWT_SECRET } from '../helpers/server';

const MAIN = path.join(__dirname, '..', '..', 'dist', 'main.js');
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'auth' });
});
afterAll(async () => database?.destroy());

function run(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

it('exits non-zero naming the port when the port is taken', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  const { port } = holder.address() as AddressInfo;
  try {
    const result = await run({
      NODE_ENV: 'test', DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_SITE_URL: 'http://localhost:3000',
      API_EXTERNAL_URL: 'http://localhost:9999', PORT: String(port), LOG_LEVEL: 'fatal',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(result.stdout).not.toContain('listening');
  } finally {
    holder.close();
  }
}, 60_000);

it('production without SMTP and without autoconfirm refuses to start, naming the settings', async () => {
  const result = await run({
    NODE_ENV: 'production', DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_SITE_URL: 'http://localhost:3000',
    API_EXTERNAL_URL: 'http://localhost:9999',
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('AUTH_SMTP_HOST: required in production unless AUTH_MAILER_AUTOCONFIRM=true');
}, 60_000);

it('production refuses a short or patterned JWT secret with one line naming the setting (issue 39)', async () => {
  const base = {
    NODE_ENV: 'production', DATABASE_URL: database.url, AUTH_SITE_URL: 'http://localhost:3000',
    API_EXTERNAL_URL: 'http://localhost:9999', AUTH_MAILER_AUTOCONFIRM: 'true',
  };
  const short = await run({ ...base, AUTH_JWT_SECRET: 'short' });
  expect(short.code).toBe(1);
  expect(short.stderr).toBe('Invalid configuration:\n  AUTH_JWT_SECRET: expected at least 32 characters in production\n');
  const patterned = await run({ ...base, AUTH_JWT_SECRET: 'secret'.repeat(8) });
  expect(patterned.code).toBe(1);
  expect(patterned.stderr).toMatch(/^Invalid configuration:\n {2}AUTH_JWT_SECRET: too predictable for production/);
  // The token command signs with the same secret, so it refuses it too.
  const token = await run({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'short' }, ['token', '--role', 'service_role']);
  expect(token.code).toBe(1);
  expect(token.stderr).toContain('AUTH_JWT_SECRET: expected at least 32 characters in production');
}, 60_000);

it('a missing, refusing or unreachable database stops it with one line naming the problem (issue 39)', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const { port: closedPort } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const base = { NODE_ENV: 'test', AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_SITE_URL: 'http://localhost:3000', API_EXTERNAL_URL: 'http://localhost:9999', LOG_LEVEL: 'fatal' };
  const server = new URL(database.url);
  const withDatabase = (change: (url: URL) => void) => {
    const url = new URL(server.href);
    change(url);
    return url.href;
  };
  const cases: Array<[string, string, RegExp]> = [
    ['serve', withDatabase((u) => (u.pathname = '/kz_no_such_database')), /the database does not exist \(database "kz_no_such_database" does not exist\)/],
    ['migrate', withDatabase((u) => (u.username = 'kz_no_such_role')), /the server refused the connection \(role "kz_no_such_role" does not exist\)/],
    ['serve', withDatabase((u) => { u.hostname = '127.0.0.1'; u.port = String(closedPort); }), /nothing accepts connections there \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/],
  ];
  for (const [command, url, problem] of cases) {
    const result = await run({ ...base, DATABASE_URL: url, AUTH_DB_WAIT_TIMEOUT: '1' }, [command]);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^auth-server: cannot use the database: ${problem.source}$`))]);
    expect(result.stderr).not.toContain(url); // the URL may carry the password
  }
}, 90_000);

it('in production the listening line is JSON like every other line', async () => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  const { port } = holder.address() as AddressInfo;
  await new Promise((resolve) => holder.close(resolve));
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '', NODE_ENV: 'production', DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_JWT_SECRET,
      AUTH_SITE_URL: 'http://localhost:3000', API_EXTERNAL_URL: 'http://localhost:9999', PORT: String(port), AUTH_MAILER_AUTOCONFIRM: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  const listening = new Promise<Record<string, unknown>>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n').find((l) => l.includes('listening'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const line = await listening;
    expect(line).toMatchObject({ level: 'info', msg: expect.stringMatching(/^auth-server .* listening on http:\/\/0\.0\.0\.0:\d+$/), externalUrl: 'http://localhost:9999' });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 60_000);

it('`token --role service_role` prints an admin JWT signed with the configured key', async () => {
  const env = { NODE_ENV: 'test', DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_SITE_URL: 'http://localhost:3000', API_EXTERNAL_URL: 'http://localhost:9999' };
  const printed = await run(env, ['token', '--role', 'service_role', '--exp', '600']);
  expect(printed.code).toBe(0);
  const token = printed.stdout.trim();
  const server = await startTestServer();
  try {
    expect((await call(server.url, 'GET', '/admin/users', { token })).status).toBe(200);
  } finally {
    await server.close();
  }
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, number | string>;
  expect(claims.role).toBe('service_role');
  expect(Number(claims.exp) - Number(claims.iat)).toBe(600);
  const bad = await run(env, ['token']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('usage: main.js token --role');
}, 60_000);
