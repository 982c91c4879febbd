// `pnpm start` at the repository root (turbo) must hand the deployment's settings to the services (issue 13):
// DATABASE_URL reaches the DNS API, and NODE_ENV=production with nothing set stops both services, each
// naming every missing setting. Turbo filters the environment of its tasks unless told otherwise.
// `--only`: turbo's `start` depends on `build`, and on a tree other work is editing that rebuilt every package
// each time (this file took 133 s of a `pnpm test`, issue 39); `pnpm test` has built them already.
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';

const ROOT = path.join(__dirname, '..', '..', '..');
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
});
afterAll(async () => database?.destroy());

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function pnpm(args: string[], env: Record<string, string>) {
  const child = spawn('pnpm', args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

it('NODE_ENV=production pnpm start with nothing set exits non-zero naming the missing settings of both services', async () => {
  const run = pnpm(['start', '--only'], { NODE_ENV: 'production' });
  const code = await run.exited;
  expect(code).not.toBe(0);
  for (const name of ['AUTH_SITE_URL', 'AUTH_DATABASE_URL', 'AUTH_JWT_SECRET', 'SESSION_SECRET: required in production', 'DATABASE_URL: required in production']) {
    expect(run.output()).toContain(name);
  }
}, 180_000);

it('DATABASE_URL=… pnpm start writes to that database', async () => {
  const port = await freePort();
  const run = pnpm(['turbo', 'run', 'start', '--only', '--filter=@keyzone/dns-session-api'], {
    NODE_ENV: 'production', DATABASE_URL: database.url, SESSION_SECRET: 'a-production-secret-of-forty-characters-xx', PORT: String(port),
  });
  try {
    let healthy = false;
    for (let i = 0; i < 600 && !healthy; i++) {
      healthy = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(healthy).toBe(true);
    const migrations = await sql<{ n: string }>`select count(*) as n from dns.kysely_migration`.execute(database.db);
    expect(Number(migrations.rows[0]!.n)).toBeGreaterThan(0);
  } finally {
    if (run.child.pid) process.kill(-run.child.pid, 'SIGTERM');
    await run.exited;
  }
}, 180_000);
