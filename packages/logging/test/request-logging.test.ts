import { request as httpRequest } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createLogger, requestLogging, sanitizeRequestId } from '../src';
import { captureStream, listen, waitFor } from './helpers';

type Line = Record<string, unknown>;

/** An app shaped like the services: request logging first, JSON bodies, a mounted router, an error handler. */
function buildApp(options: { requestIdHeader?: string; generateId?: () => string }) {
  const stream = captureStream();
  const logger = createLogger({ name: 'test', level: 'debug', destination: stream });
  const app = express();
  let releaseSlow: (() => void) | undefined;
  let slowStarted = false;
  app.use(requestLogging({ logger, ...options }));
  app.use(express.json());

  const admin = express.Router();
  admin.get('/users/:user_id', (req, res) => {
    req.log.debug({ userId: req.params.user_id }, 'loading user');
    res.json({ id: req.params.user_id, reqId: req.id });
  });
  admin.put('/users/:user_id', () => {
    throw Object.assign(new Error('cannot update'), { status: 422 });
  });
  const auth = express.Router();
  auth.post('/token', (req, res) => {
    // A careless handler logging the whole body: the password must still not appear.
    req.log.info({ body: req.body, headers: req.headers }, 'token request');
    res.status(400).json({ error: 'invalid_grant' });
  });
  auth.get('/verify', (_req, res) => res.redirect(303, 'http://example.test/welcome'));
  auth.get('/files/*rest', (_req, res) => res.send('file'));
  auth.get('/slow', (_req, res) => {
    slowStarted = true;
    releaseSlow = () => res.end('late');
  });
  app.use('/admin', admin);
  app.use('/auth/v1', auth);
  app.get('/health', (_req, res) => res.json({ ok: true }));
  app.use((err: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ message: err.message });
  });

  const completed = (): Line[] => stream.records().filter((r) => r.msg === 'request completed');
  return {
    app,
    stream,
    completed,
    slowStarted: () => slowStarted,
    releaseSlow: () => releaseSlow?.(),
  };
}

describe('requestLogging', () => {
  it('writes exactly one line per request with the parametrized route', async () => {
    const t = buildApp({});
    const server = await listen(t.app);
    try {
      const res = await fetch(`${server.base}/admin/users/42?select=email`);
      expect(res.status).toBe(200);
      const reqId = res.headers.get('x-request-id');
      expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await res.json()) as { reqId: string }).reqId).toBe(reqId);

      await fetch(`${server.base}/admin/users/7`, { method: 'PUT' });
      await fetch(`${server.base}/auth/v1/files/a/b.txt`);
      await fetch(`${server.base}/nowhere/at/all?x=1`);
      await fetch(`${server.base}/health`, { method: 'HEAD' });
      await waitFor(() => t.completed().length >= 5);

      const lines = t.completed();
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatchObject({ level: 'info', name: 'test', reqId, method: 'GET', route: '/admin/users/:user_id', path: '/admin/users/42', status: 200, ip: '127.0.0.1' });
      expect(typeof lines[0]!.durationMs).toBe('number');
      // The error left the sub-router before the app-level handler answered; the route still has its mount path.
      expect(lines[1]).toMatchObject({ method: 'PUT', route: '/admin/users/:user_id', path: '/admin/users/7', status: 422 });
      expect(lines[2]).toMatchObject({ route: '/auth/v1/files/*rest', path: '/auth/v1/files/a/b.txt', status: 200 });
      expect(lines[3]).toMatchObject({ route: 'unmatched', path: '/nowhere/at/all', status: 404 });
      expect(lines[4]).toMatchObject({ level: 'debug', method: 'HEAD', route: '/health', status: 200 });
      for (const line of lines) expect(Object.keys(line).sort()).toEqual(['durationMs', 'hostname', 'ip', 'level', 'method', 'msg', 'name', 'path', 'pid', 'reqId', 'route', 'status', 'time']);

      // Lines logged by handlers through req.log carry the same reqId.
      const debug = t.stream.records().find((r) => r.msg === 'loading user');
      expect(debug).toMatchObject({ reqId, userId: '42', level: 'debug' });
    } finally {
      await server.close();
    }
  });

  it('takes the request id from the configured header, sanitized', async () => {
    const t = buildApp({ requestIdHeader: 'X-Trace-Id' });
    const server = await listen(t.app);
    try {
      const res = await fetch(`${server.base}/health`, { headers: { 'x-trace-id': 'edge-abc-123' } });
      expect(res.headers.get('x-request-id')).toBe('edge-abc-123');
      const long = await fetch(`${server.base}/health`, { headers: { 'x-trace-id': `${'a'.repeat(300)}` } });
      expect(long.headers.get('x-request-id')).toBe('a'.repeat(200));
      const tabbed = await fetch(`${server.base}/health`, { headers: { 'x-trace-id': 'ab\tcd' } });
      expect(tabbed.headers.get('x-request-id')).toBe('abcd');
      // Another header name is not trusted; a missing header gets a generated id.
      const other = await fetch(`${server.base}/health`, { headers: { 'x-request-id': 'spoofed' } });
      expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      await waitFor(() => t.completed().length >= 4);
      expect(t.completed().map((l) => l.reqId)).toEqual(['edge-abc-123', 'a'.repeat(200), 'abcd', other.headers.get('x-request-id')]);
    } finally {
      await server.close();
    }
  });

  it('uses generateId when the header is absent or unusable', async () => {
    let n = 0;
    const t = buildApp({ requestIdHeader: 'x-request-id', generateId: () => `gen-${++n}` });
    const server = await listen(t.app);
    try {
      expect((await fetch(`${server.base}/health`)).headers.get('x-request-id')).toBe('gen-1');
      expect((await fetch(`${server.base}/health`, { headers: { 'x-request-id': '   ' } })).headers.get('x-request-id')).toBe('gen-2');
    } finally {
      await server.close();
    }
  });

  it('never logs passwords, tokens, authorization headers or query strings', async () => {
    const t = buildApp({});
    const server = await listen(t.app);
    const secrets = ['hunter2-password', 'query-token-value', 'bearer-secret-value', 'cookie-secret-value', 'refresh-secret-value'];
    try {
      const res = await fetch(`${server.base}/auth/v1/token?grant_type=password&token=query-token-value`, {
        method: 'POST',
        headers: { authorization: 'Bearer bearer-secret-value', cookie: 'sb=cookie-secret-value', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'a@example.com', password: 'hunter2-password', refresh_token: 'refresh-secret-value' }),
      });
      expect(res.status).toBe(400);
      await fetch(`${server.base}/auth/v1/verify?token=query-token-value&type=signup`, { redirect: 'manual' });
      await waitFor(() => t.completed().length >= 2);

      const output = t.stream.lines.join('\n');
      for (const secret of secrets) expect(output).not.toContain(secret);
      expect(output).not.toContain('grant_type');
      expect(t.completed()[0]).toMatchObject({ route: '/auth/v1/token', path: '/auth/v1/token', status: 400 });
      expect(t.completed()[1]).toMatchObject({ route: '/auth/v1/verify', path: '/auth/v1/verify', status: 303 });
      // The careless handler's line is there, with the secret fields replaced.
      const careless = t.stream.records().find((r) => r.msg === 'token request') as { body: Line; headers: Line };
      expect(careless.body).toEqual({ email: 'a@example.com', password: '[REDACTED]', refresh_token: '[REDACTED]' });
      expect(careless.headers).toMatchObject({ authorization: '[REDACTED]', cookie: '[REDACTED]' });
    } finally {
      await server.close();
    }
  });

  it('logs once, marked aborted, when the client goes away before the response', async () => {
    const t = buildApp({});
    const server = await listen(t.app);
    try {
      const req = httpRequest(`${server.base}/auth/v1/slow`);
      req.on('error', () => undefined);
      req.end();
      await waitFor(t.slowStarted);
      req.destroy();
      await waitFor(() => t.completed().length >= 1);
      t.releaseSlow();
      await fetch(`${server.base}/health`);
      await waitFor(() => t.completed().length >= 2);
      const lines = t.completed();
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ route: '/auth/v1/slow', aborted: true });
      expect(lines[1]).toMatchObject({ route: '/health' });
      expect(lines[1]).not.toHaveProperty('aborted');
    } finally {
      await server.close();
    }
  });
});

describe('requestLogging: health checks', () => {
  /** An app whose /health answers `healthStatus`, logged at info (the services' default level). */
  function healthApp(quietPaths?: string[]) {
    const stream = captureStream();
    const logger = createLogger({ name: 'test', level: 'info', destination: stream });
    const app = express();
    let healthStatus = 200;
    app.use(requestLogging({ logger, ...(quietPaths ? { quietPaths } : {}) }));
    app.get('/health', (_req, res) => res.status(healthStatus).json({ ok: healthStatus === 200 }));
    app.get('/user', (_req, res) => res.json({}));
    const completed = (): Line[] => stream.records().filter((r) => r.msg === 'request completed');
    return { app, completed, setHealth: (status: number) => (healthStatus = status) };
  }

  it('logs a passing /health at debug (not written at info) and a failing one at info', async () => {
    const t = healthApp();
    const server = await listen(t.app);
    try {
      for (let i = 0; i < 3; i += 1) expect((await fetch(`${server.base}/health?probe=${i}`)).status).toBe(200);
      t.setHealth(503);
      expect((await fetch(`${server.base}/health`)).status).toBe(503);
      expect((await fetch(`${server.base}/user`)).status).toBe(200);
      await waitFor(() => t.completed().length >= 2);
      expect(t.completed()).toEqual([
        expect.objectContaining({ level: 'info', route: '/health', status: 503 }),
        expect.objectContaining({ level: 'info', route: '/user', status: 200 }),
      ]);
    } finally {
      await server.close();
    }
  });

  it('logs every request at info with quietPaths: []', async () => {
    const t = healthApp([]);
    const server = await listen(t.app);
    try {
      expect((await fetch(`${server.base}/health`)).status).toBe(200);
      await waitFor(() => t.completed().length >= 1);
      expect(t.completed()).toEqual([expect.objectContaining({ level: 'info', route: '/health', status: 200 })]);
    } finally {
      await server.close();
    }
  });
});

describe('sanitizeRequestId', () => {
  it('keeps printable ASCII, trims, caps at 200 characters', () => {
    expect(sanitizeRequestId(undefined)).toBeUndefined();
    expect(sanitizeRequestId('')).toBeUndefined();
    expect(sanitizeRequestId(['first', 'second'])).toBe('first');
    expect(sanitizeRequestId(' id\u0000\u001b[31m\u00ff-1 ')).toBe('id[31m-1');
    expect(sanitizeRequestId('x'.repeat(500))).toHaveLength(200);
    expect(sanitizeRequestId('\u0007\u0008')).toBeUndefined();
  });
});
