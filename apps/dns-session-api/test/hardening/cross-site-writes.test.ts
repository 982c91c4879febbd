// Every cookie-authenticated write refuses a request a browser reports as sent from another origin (issue 42),
// in the service's error shape, before the body is read; the session cookie itself is SameSite=Strict.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';

let server: TestServer;
let alice: CookieClient;

beforeAll(async () => {
  server = await startTestServer({ kind: 'pglite' });
  await server.seedUser({ group: 'xsite-acme', username: 'alice' });
  alice = await server.login('alice@xsite-acme');
});
afterAll(() => server?.close());

const refused = { statusCode: 403, error: 'Forbidden', message: 'A write from a page of another origin is refused (cross-site request)' };

describe('cross-site writes', () => {
  test('a write with a foreign Origin, or Sec-Fetch-Site cross-site or same-site, is a 403 and changes nothing', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'https://sibling.localhost' },
    ]) {
      const res = await alice.post('/zone', { zone: 'xsite.example.' }, { headers });
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: refused });
    }
    const signOut = await alice.delete('/session', { headers: { origin: 'https://evil.example' } });
    expect(signOut.status).toBe(403);
    const login = await server.client().post('/session', { username: 'alice@xsite-acme', password: 'x' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(login.status).toBe(403);
    expect((await alice.get('/zone?zone=xsite.example')).body.zone).toEqual([]);
  });

  test('the same write from the own origin, or from a client that names none (curl), goes through', async () => {
    const own = new URL(server.url).origin;
    expect((await alice.post('/zone', { zone: 'xsite-own.example.' }, { headers: { origin: own, 'sec-fetch-site': 'same-origin' } })).status).toBe(201);
    expect((await alice.post('/zone', { zone: 'xsite-curl.example.' })).status).toBe(201);
  });

  test('reads are not refused, and the token-authenticated PowerDNS API is not this check’s concern', async () => {
    expect((await alice.get('/zone', { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    const pdns = await server.client().post('/api/v1/servers/localhost/zones', {}, { headers: { origin: 'https://evil.example' } });
    expect(pdns.status).toBe(401);
  });

  test('the session cookie is HttpOnly and SameSite=Strict', async () => {
    const res = await server.client().post('/session', { username: 'alice@xsite-acme', password: 'Wh@tA-Decent#P6ssw0rd' });
    expect(res.setCookies.join('\n')).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
  });
});
