// The executable's command line (issue 39): --help on every command and sub-command prints its usage and exits 0;
// wrong arguments print the usage and each problem in words (never Node's parser or a schema) and exit 2; `version`
// answers without loading the app. The built dist/main.js, as deployed.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { VERSION } from '../src/version';

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test' } });
const refused = async (...args: string[]): Promise<string> => {
  const failed = await cli(...args).then(() => undefined, (err: { code: number; stderr: string }) => err);
  expect([args.join(' '), failed?.code]).toEqual([args.join(' '), 2]);
  return failed?.stderr ?? '';
};

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm run build\` in apps/auth-server first`);
});

it('--help on every command and sub-command prints its usage and exits 0', async () => {
  const commands: Array<[string[], string]> = [
    [['--help'], 'usage: main.js [command]'], [['-h'], 'usage: main.js [command]'], [['help'], 'usage: main.js [command]'],
    [['help', 'token'], 'usage: main.js token'], [['serve', '--help'], 'usage: main.js [serve]'],
    [['migrate', '--help'], 'usage: main.js migrate'], [['version', '--help'], 'usage: main.js version'],
    [['token', '--help'], 'usage: main.js token'], [['token', '--role', 'x', '-h'], 'usage: main.js token'],
    [['keys', '--help'], 'usage: main.js keys generate'], [['keys', 'generate', '--help'], 'usage: main.js keys generate'],
  ];
  for (const [args, usage] of commands) {
    const { stdout, stderr } = await cli(...args);
    expect([args.join(' '), stdout.startsWith(usage), stderr]).toEqual([args.join(' '), true, '']);
  }
});

it('wrong arguments: the usage, then each problem in words', async () => {
  const missing = await refused('token');
  expect(missing).toMatch(/^usage: main\.js token/);
  expect(missing).toContain('  --role: required\n');
  expect(await refused('token', '--role')).toContain('  --role: a value is required');
  expect(await refused('token', '--role', 'r', '--frob')).toContain('  unknown option --frob');
  expect(await refused('token', '--role', 'r', '--exp', 'soon')).toContain('  --exp: whole seconds');
  expect(await refused('keys')).toContain('  expected the sub-command: keys generate');
  expect(await refused('keys', 'rotate')).toContain('  unknown sub-command "rotate"');
  expect(await refused('serve', '--port', '1')).toContain('  unknown option --port');
  expect(await refused('frob')).toContain('  unknown command "frob"');
  for (const stderr of [missing, await refused('keys', 'generate', '--frob')]) expect(stderr).not.toMatch(/Unknown option|ERR_PARSE_ARGS|Invalid input/);
});

it('version prints the package version', async () => {
  const { stdout } = await cli('version');
  expect(stdout.trim()).toBe(VERSION);
});
