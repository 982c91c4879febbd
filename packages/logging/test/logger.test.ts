import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createLogger, redactSecrets, requestLogging, toPinoLevel } from '../src';
import { captureStream, listen, waitFor } from './helpers';

const packageDir = join(__dirname, '..');
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kz-logging-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The child-process tests load dist/ the way a CommonJS consumer does; rebuild it when stale. */
function ensureBuilt(): void {
  const built = join(packageDir, 'dist/index.js');
  const newestSource = Math.max(...readdirSync(join(packageDir, 'src')).map((f) => statSync(join(packageDir, 'src', f)).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: packageDir });
  }
}

describe('createLogger', () => {
  it('writes JSON lines with level names, the service name and an ISO time', () => {
    const stream = captureStream();
    const logger = createLogger({ name: 'auth-server', destination: stream });
    logger.info({ userId: 'u1' }, 'hello');
    logger.debug('not at info');
    const [line, ...rest] = stream.records();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ level: 'info', name: 'auth-server', userId: 'u1', msg: 'hello' });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });

  it('accepts GoTrue level names', () => {
    expect(toPinoLevel('panic')).toBe('fatal');
    expect(toPinoLevel('warning')).toBe('warn');
    expect(toPinoLevel('DEBUG')).toBe('debug');
    expect(toPinoLevel(undefined)).toBe('info');
    expect(toPinoLevel('')).toBe('info');
    expect(() => toPinoLevel('verbose')).toThrow('unknown log level "verbose"');
    const stream = captureStream();
    const logger = createLogger({ name: 'x', level: 'panic', destination: stream });
    expect(logger.level).toBe('fatal');
    logger.error('dropped');
    logger.fatal('kept');
    expect(stream.records().map((r) => r.msg)).toEqual(['kept']);
    expect(createLogger({ name: 'x', level: 'trace', destination: stream }).level).toBe('trace');
  });

  it('redacts secret fields at any depth, in bindings too, without touching the caller object', () => {
    const stream = captureStream();
    const logger = createLogger({ name: 'x', destination: stream });
    const payload = {
      password: 'p0',
      user: { email: 'a@b.c', Password: 'p1', identities: [{ provider: 'github', access_token: 'gh-token', nested: { refresh_token: 'r' } }] },
      req: { headers: { authorization: 'Bearer abc', cookie: 'sid=1', 'set-cookie': ['s=1'], host: 'h' } },
      deep: { a: { b: { c: { d: { secret: 's', nonce: 'n', code_verifier: 'v' } } } } },
      config: { smtp: { pass: 'smtp-pass' }, jwt: { secret: 'jwt-secret' } },
      empty: { token: null },
      code: 'weak_password',
    };
    const snapshot = JSON.stringify(payload);
    logger.info(payload, 'with secrets');
    logger.child({ token: 'child-token', reqId: 'r1' }).info('child line');
    expect(JSON.stringify(payload)).toBe(snapshot);

    const output = stream.lines.join('\n');
    for (const secret of ['p0', 'p1', 'gh-token', '"r"', 'Bearer abc', 'sid=1', 's=1', 'smtp-pass', 'jwt-secret', 'child-token', '"n"', '"v"']) {
      expect(output).not.toContain(secret);
    }
    const [line, child] = stream.records() as [typeof payload, Record<string, unknown>];
    expect(line.user).toEqual({ email: 'a@b.c', Password: '[REDACTED]', identities: [{ provider: 'github', access_token: '[REDACTED]', nested: { refresh_token: '[REDACTED]' } }] });
    expect(line.req.headers).toEqual({ authorization: '[REDACTED]', cookie: '[REDACTED]', 'set-cookie': '[REDACTED]', host: 'h' });
    expect(line.empty).toEqual({ token: null });
    expect(line.code).toBe('weak_password');
    expect(child).toMatchObject({ reqId: 'r1', token: '[REDACTED]' });
  });

  it('leaves errors to the err serializer', () => {
    const stream = captureStream();
    createLogger({ name: 'x', destination: stream }).error({ err: new Error('boom') }, 'failed');
    expect(stream.records()[0]).toMatchObject({ err: { type: 'Error', message: 'boom' }, msg: 'failed' });
    const same = { a: 1, b: [1, { c: 2 }] };
    expect(redactSecrets(same)).toBe(same);
  });

  it('pretty-prints for development (redacted, no JSON)', async () => {
    const stream = captureStream();
    const logger = createLogger({ name: 'dev', pretty: true, destination: stream });
    logger.info({ password: 'pretty-secret', userId: 'u1' }, 'pretty line');
    await waitFor(() => stream.lines.length > 0);
    const output = stream.lines.join('\n');
    expect(output).toContain('INFO');
    expect(output).toContain('(dev): pretty line');
    expect(output).toContain('"userId":"u1"');
    expect(output).not.toContain('pretty-secret');
    expect(output.trim().startsWith('{')).toBe(false);
  });

  it('prints one console line per request in development, and the fields stay in JSON output', async () => {
    const pretty = captureStream();
    const json = captureStream();
    const app = express();
    app.use(requestLogging({ logger: createLogger({ name: 'dev', pretty: true, destination: pretty }) }));
    app.use(requestLogging({ logger: createLogger({ name: 'prod', destination: json }) }));
    app.get('/ping', (_req, res) => res.json({ ok: true }));
    const server = await listen(app);
    try {
      for (let i = 0; i < 3; i += 1) await fetch(`${server.base}/ping`);
      await waitFor(() => pretty.lines.length >= 3 && json.lines.length >= 3);
    } finally {
      await server.close();
    }
    expect(pretty.lines).toHaveLength(3);
    expect(pretty.lines[0]).toMatch(/INFO \(dev\): GET \/ping 200 [0-9.]+ ms \{"reqId":"[0-9a-f-]{36}"\}$/);
    expect(json.records()[0]).toMatchObject({ msg: 'request completed', method: 'GET', path: '/ping', status: 200 });
  });
});

describe('LOG_FILE and CommonJS consumers (child processes)', () => {
  beforeAll(ensureBuilt, 60_000);

  function runNode(script: string): { stdout: string; stderr: string; status: number | null } {
    const result = spawnSync(process.execPath, ['-e', script], { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { stdout: result.stdout, stderr: result.stderr, status: result.status };
  }

  it('appends JSON lines to LOG_FILE, creating its folder, flushed even on process.exit', () => {
    const file = join(tmp, 'nested/logs/auth.log');
    for (const n of [1, 2]) {
      const run = runNode(`
        const { createLogger } = require('./dist');
        const log = createLogger({ name: 'file-test', file: ${JSON.stringify(file)}, pretty: true });
        log.info({ run: ${n}, password: 'file-secret' }, 'to file');
        process.exit(0);`);
      expect(run).toMatchObject({ status: 0, stdout: '', stderr: '' });
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', name: 'file-test', run: 1, password: '[REDACTED]', msg: 'to file' }),
      expect.objectContaining({ run: 2 }),
    ]);
  });

  it('pretty output works from CommonJS when stdout is a pipe, not a TTY', () => {
    const run = runNode(`
      const { createLogger } = require('./dist');
      const log = createLogger({ name: 'piped', pretty: true, level: 'debug' });
      log.debug({ token: 'pipe-secret' }, 'piped line');`);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('DEBUG (piped): piped line');
    expect(run.stdout).not.toContain('pipe-secret');
    expect(run.stdout).not.toContain('\u001b['); // no colour codes into a pipe
  });

  it('writes JSON to stdout by default', () => {
    const run = runNode(`require('./dist').createLogger({ name: 'plain' }).warn('careful'); process.exit(0);`);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ level: 'warn', name: 'plain', msg: 'careful' });
  });
});
