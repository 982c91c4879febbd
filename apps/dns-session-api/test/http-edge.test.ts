import { createTestDatabase } from '@keyzone/db/testing';
import { startTestServer, type TestServer } from './helpers/server';

// The HTTP edge shared by every route: body parsing, size cap, error shape, headers.
describe('HTTP edge', () => {
  let t: TestServer;
  let admin: Awaited<ReturnType<TestServer['login']>>;
  beforeAll(async () => {
    t = await startTestServer({ kind: 'pglite' });
    await t.seedUser({ group: 'edge.example', username: 'edge-admin', isAdmin: true });
    admin = await t.login('edge-admin@edge.example');
  });
  afterAll(() => t?.close());

  test('malformed JSON on any route is 400 in the error shape, not a 500', async () => {
    const res = await admin.request('POST', '/user', { raw: '{"gid": 1,', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Invalid request payload input' });
  });

  test('a body over the configured limit is 413', async () => {
    const big = JSON.stringify({ username: 'x'.repeat(t.config.http.bodyLimit), password: 'y' });
    const res = await t.client().request('POST', '/session', { raw: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: expect.any(String) });
  });

  test('a non-JSON body on a JSON route is 400 naming the payload', async () => {
    const res = await admin.request('POST', '/group', { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid request payload input/);
  });

  test('HEAD answers as GET does, without the body: same status, type and length', async () => {
    const get = await admin.get('/user');
    const head = await admin.request('HEAD', '/user');
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(get.text));
  });

  test('every API response: JSON content type, no-cache, Keep-Alive timeout=5, a request id', async () => {
    for (const res of [await admin.get('/user'), await t.client().get('/user'), await t.client().get('/nowhere')]) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('keep-alive')).toBe('timeout=5');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  test('an unknown method on a known path is 404 in the error shape', async () => {
    const res = await admin.request('PATCH', '/user/1');
    expect(res.status).toBe(404);
    expect(res.body.statusCode).toBe(404);
  });
});

describe('GET /health', () => {
  test('200 while the database answers, 503 in the error shape once it does not', async () => {
    const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
    const t = await startTestServer({ database });
    try {
      const up = await t.client().get('/health');
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ health: { status: 'ok', database: 'ok' }, meta: { api: { version: expect.any(String) }, msg: 'healthy' } });
      expect(up.headers.get('cache-control')).toBe('no-cache');
      await database.destroy();
      const down = await t.client().get('/health');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'database unavailable' });
    } finally {
      await t.close();
    }
  });
});
