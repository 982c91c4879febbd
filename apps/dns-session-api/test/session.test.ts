import { API_VERSION } from '../src/version';
import { PASSWORD, startTestServer, type TestServer } from './helpers/server';

const BAD_PAYLOAD = '{"statusCode":400,"error":"Bad Request","message":"Invalid request payload input"}';
const INVALID_AUTH = { statusCode: 401, error: 'Unauthorized', message: 'Invalid authentication' };
const MISSING_AUTH = { statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' };

describe.each(['postgres', 'pglite'] as const)('POST/GET/DELETE /session on %s', (kind) => {
  let t: TestServer;
  let ids: { userId: number; groupId: number };

  beforeAll(async () => {
    t = await startTestServer({ kind });
    ids = await t.seedUser({ group: 'route.example.com', username: 'route-test' });
    await t.seedUser({ group: 'NicTool', username: 'default-group-user' });
  });
  afterAll(() => t?.close());

  test('login answers 200 with the Login response, the headers and the cookie', async () => {
    const client = t.client();
    const res = await client.post('/session', { username: 'route-test@route.example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: ids.userId, first_name: 'First', last_name: 'Last', username: 'route-test', email: 'route-test@example.com' },
      group: { id: ids.groupId, name: 'route.example.com' },
      session: { id: expect.any(Number) },
      meta: { api: { version: API_VERSION }, msg: 'you are logged in' },
    });
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('keep-alive')).toBe('timeout=5');
    expect(res.setCookies).toHaveLength(1);
    const cookie = res.setCookies[0]!;
    expect(cookie).toMatch(/^sid-dnsapi=s%3A[^;]+; Max-Age=3600; Expires=[^;]+; HttpOnly; SameSite=Strict; Path=\/$/);
    const expires = new Date(/Expires=([^;]+)/.exec(cookie)![1]!).getTime();
    expect(Math.abs(expires - (Date.now() + 3600_000))).toBeLessThan(5000);
    expect(cookie).not.toContain('Secure');
  });

  test.each(['/session/', '/Session'])('POST %s (Express routes ignore case and a trailing slash) logs in like /session, and its cookie works', async (path) => {
    const client = t.client();
    const res = await client.post(path, { username: 'route-test@route.example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect((await client.get('/session')).status).toBe(200);
  });

  test('a username without @group uses the configured default group', async () => {
    const res = await t.client().post('/session', { username: 'default-group-user', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.group.name).toBe('NicTool');
  });

  test.each([
    ['no body', undefined],
    ['an empty object', {}],
    ['no password', { username: 'route-test@route.example.com' }],
    ['an empty password', { username: 'route-test@route.example.com', password: '' }],
    ['a number as username', { username: 42, password: PASSWORD }],
    ['an unknown key', { username: 'route-test@route.example.com', password: PASSWORD, extra: 1 }],
  ])('400 byte for byte with %s', async (_name, payload) => {
    const res = await t.client().post('/session', payload);
    expect(res.status).toBe(400);
    expect(res.text).toBe(BAD_PAYLOAD);
    expect(res.setCookies).toEqual([]);
  });

  test('400 for malformed JSON and for a body that is not JSON', async () => {
    const malformed = await t.client().request('POST', '/session', { raw: '{"username":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toBe(BAD_PAYLOAD);
    const form = await t.client().request('POST', '/session', { raw: 'username=a&password=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(400);
    expect(form.text).toBe(BAD_PAYLOAD);
  });

  test.each([
    ['a wrong password', 'route-test@route.example.com', 'Wrong#Password99'],
    ['an unknown user', 'nobody@route.example.com', PASSWORD],
    ['an unknown group', 'route-test@nowhere.example', PASSWORD],
    ['the wrong group', 'route-test@NicTool', PASSWORD],
  ])('401 with the same body for %s, and no cookie', async (_name, username, password) => {
    const res = await t.client().post('/session', { username, password });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_AUTH);
    expect(res.setCookies).toEqual([]);
  });

  test('the username is case-insensitive, the group name is not', async () => {
    expect((await t.client().post('/session', { username: 'ROUTE-test@route.example.com', password: PASSWORD })).status).toBe(200);
    expect((await t.client().post('/session', { username: 'route-test@ROUTE.example.com', password: PASSWORD })).status).toBe(401);
  });

  test('GET /session returns the login; DELETE /session revokes it server-side and clears the cookie', async () => {
    const client = await t.login('route-test@route.example.com');
    const oldCookie = client.cookieHeader();
    const current = await client.get('/session');
    expect(current.status).toBe(200);
    expect(current.body.user.id).toBe(ids.userId);
    expect(current.body.group).toEqual({ id: ids.groupId, name: 'route.example.com' });
    expect(current.body.meta.msg).toBe("here's your session");

    const out = await client.delete('/session');
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ meta: { api: { version: API_VERSION }, msg: 'You are logged out' } });
    expect(out.setCookies).toEqual(['sid-dnsapi=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict; Path=/']);
    expect(client.jar.size).toBe(0);

    // The old cookie, replayed, is rejected: the session is gone server-side.
    const replay = await t.client().get('/session', { headers: { cookie: oldCookie } });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual(MISSING_AUTH);
    expect(replay.headers.get('www-authenticate')).toBe('cookie');
  });

  test('GET /session reads the user and group as they are now, not as they were at login', async () => {
    const { userId } = await t.seedUser({ group: 'route.example.com', username: 'renamed-later' });
    const client = await t.login('renamed-later@route.example.com');
    await t.deps.db.updateTable('dns.users').set({ first_name: 'Changed' }).where('id', '=', userId).execute();
    await t.deps.db.updateTable('dns.groups').set({ name: 'renamed.example.com' }).where('id', '=', ids.groupId).execute();
    try {
      const res = await client.get('/session');
      expect(res.body.user.first_name).toBe('Changed');
      expect(res.body.group).toEqual({ id: ids.groupId, name: 'renamed.example.com' });
    } finally {
      await t.deps.db.updateTable('dns.groups').set({ name: 'route.example.com' }).where('id', '=', ids.groupId).execute();
    }
  });

  test('no cookie: GET and DELETE /session are 401 Missing authentication', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.client().request(method, '/session');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(MISSING_AUTH);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  test('a forged cookie is rejected and cleared', async () => {
    const client = await t.login('route-test@route.example.com');
    const value = client.jar.get('sid-dnsapi')!;
    // Same session id, signature tampered with.
    const forged = value.slice(0, -3) + (value.endsWith('abc') ? 'xyz' : 'abc');
    const res = await t.client().get('/session', { headers: { cookie: `sid-dnsapi=${forged}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(MISSING_AUTH);
    expect(res.setCookies[0]).toMatch(/^sid-dnsapi=; Max-Age=0/);
    // An unsigned id of a live session is not accepted either.
    const sid = decodeURIComponent(value).slice(2).split('.')[0]!;
    expect((await t.client().get('/session', { headers: { cookie: `sid-dnsapi=${sid}` } })).status).toBe(401);
  });

  test('a session expires server-side after the ttl (the clock moves, nothing sleeps)', async () => {
    const client = await t.login('route-test@route.example.com');
    t.clock.advance(3599);
    expect((await client.get('/session')).status).toBe(200);
    t.clock.advance(2);
    const res = await client.get('/session');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(MISSING_AUTH);
  });

  test('the session id is regenerated at login (no fixation) and each login has its own session id', async () => {
    const client = await t.login('route-test@route.example.com');
    const first = client.jar.get('sid-dnsapi');
    const again = await client.post('/session', { username: 'route-test@route.example.com', password: PASSWORD });
    expect(again.status).toBe(200);
    expect(client.jar.get('sid-dnsapi')).not.toBe(first);
    const other = await t.login('route-test@route.example.com');
    expect((await other.get('/session')).body.session.id).not.toBe(again.body.session.id);
    // The replaced session is gone.
    expect((await t.client().get('/session', { headers: { cookie: `sid-dnsapi=${first}` } })).status).toBe(401);
  });
});
