import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { PASSWORD, startTestServer } from './helpers/server';

const run = promisify(execFile);
const MAIN = path.join(__dirname, '..', 'dist', 'main.js');

// The built CLI (turbo builds before testing; `pnpm run build` by hand), spawned against a fresh PostgreSQL database.
describe('node dist/main.js', () => {
  let database: TestDatabase;
  const env = () => ({ PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: database.url });
  const cli = (...args: string[]) => run(process.execPath, [MAIN, ...args], { env: env(), cwd: os() });

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm run build\` in apps/dns-session-api first`);
    database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  });
  afterAll(() => database?.destroy());

  test('version prints the package version', async () => {
    const { stdout } = await cli('version');
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  // Issue 39: every command and sub-command answers --help with its usage and exit 0; a missing option is named
  // "required"; version loads no more than the version module.
  test('--help on every command prints its usage and exits 0', async () => {
    const commands: Array<[string[], string]> = [
      [['--help'], 'usage: main.js [command]'], [['-h'], 'usage: main.js [command]'], [['help'], 'usage: main.js [command]'],
      [['help', 'publish'], 'usage: main.js publish'], [['serve', '--help'], 'usage: main.js [serve]'],
      [['migrate', '--help'], 'usage: main.js migrate'], [['version', '--help'], 'usage: main.js version'],
      [['create-user', '--help'], 'usage: main.js create-user'], [['create-user', '--group', 'g', '-h'], 'usage: main.js create-user'],
      [['import-nictool', '--help'], 'usage: main.js import-nictool'], [['publish', '--help'], 'usage: main.js publish'],
    ];
    for (const [args, usage] of commands) {
      const { stdout, stderr } = await cli(...args);
      expect([args.join(' '), stdout.startsWith(usage), stderr]).toEqual([args.join(' '), true, '']);
    }
  });

  test('wrong arguments: the usage and each problem in words, exit 2', async () => {
    const refused = async (...args: string[]) => {
      const failed = await cli(...args).then(() => undefined, (err: { code: number; stderr: string }) => err);
      expect(failed?.code).toBe(2);
      return failed?.stderr ?? '';
    };
    const missing = await refused('create-user', '--group', 'g');
    for (const name of ['username', 'password', 'email', 'first-name', 'last-name']) expect(missing).toContain(`  --${name}: required\n`);
    expect(missing).not.toMatch(/Invalid input|expected string/);
    expect(await refused('create-user', '--frob')).toContain('  unknown option --frob');
    expect(await refused('import-nictool')).toContain('  --from: required');
    expect(await refused('import-nictool', '--from')).toContain('  --from: a value is required');
    expect(await refused('publish')).toContain('  --all: required');
    expect(await refused('publish', '--all', '--nameserver', 'x')).toContain('  --nameserver: a nameserver id');
    expect(await refused('frob')).toContain('  unknown command "frob"');
    expect(await refused('serve', '--port', '1')).toContain('  unknown option --port');
  });

  test('migrate applies the dns migrations, then has nothing to do', async () => {
    const first = await cli('migrate');
    expect(first.stdout).toMatch(/^applied: .*groups_users_sessions/m);
    const again = await cli('migrate');
    expect(again.stdout.trim()).toBe('database is up to date');
    const tables = await database.db
      .selectFrom('information_schema.tables')
      .select('table_name')
      .where('table_schema', '=', 'dns')
      .execute();
    expect(tables.map((t: { table_name: string }) => t.table_name)).toEqual(expect.arrayContaining(['groups', 'users', 'sessions']));
  });

  test('create-user creates the group when missing, prints JSON ids, and the user can sign in', async () => {
    const args = ['--group', 'cli.example', '--password', PASSWORD, '--first-name', 'Cli', '--last-name', 'User'];
    const first = await cli('create-user', ...args, '--username', 'cli-admin', '--email', 'cli-admin@example.com', '--admin');
    const created = JSON.parse(first.stdout);
    expect(created).toEqual({
      user: { id: expect.any(Number), first_name: 'Cli', last_name: 'User', username: 'cli-admin', email: 'cli-admin@example.com', is_admin: true },
      group: { id: expect.any(Number), name: 'cli.example' },
    });
    const second = JSON.parse((await cli('create-user', ...args, '--username', 'cli-user', '--email', 'cli-user@example.com')).stdout);
    expect(second.group.id).toBe(created.group.id);
    expect(second.user.is_admin).toBe(false);

    const duplicate = cli('create-user', ...args, '--username', 'cli-user', '--email', 'x@example.com');
    await expect(duplicate).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('409') });
    const bad = cli('create-user', '--group', 'cli.example', '--username', 'u');
    await expect(bad).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage: main.js create-user') });

    const t = await startTestServer({ database });
    try {
      const login = await t.client().post('/session', { username: 'cli-admin@cli.example', password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.body.user.id).toBe(created.user.id);
      expect(login.body.group.id).toBe(created.group.id);
    } finally {
      await t.close();
    }
  });

  test('serve (the default command) migrates, listens, answers with the interface headers, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { ...env(), PORT: '0', NODE_ENV: 'development' }, cwd: os() });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const res = await fetch(`${url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('{"statusCode":400,"error":"Bad Request","message":"Invalid request payload input"}');
      expect(res.headers.get('keep-alive')).toBe('timeout=5');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  test('production without a session secret refuses to start and names the setting', async () => {
    const failed = run(process.execPath, [MAIN, 'migrate'], { env: { ...env(), NODE_ENV: 'production' }, cwd: os() });
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('SESSION_SECRET') });
  });
});

/** Run from a neutral folder: the CLI finds config/ beside dist/, not in the working directory. */
function os(): string {
  return path.join(__dirname, '..', '..', '..');
}
