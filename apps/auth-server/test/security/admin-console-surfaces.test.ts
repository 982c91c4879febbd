// The admin console's new surfaces (issue 43) seen by an attacker, over real HTTP against a real database: a forged
// keyset cursor whose timestamp JavaScript accepts but PostgreSQL does not (30 February, year 0, an offset past
// ±15:59) is a 400 in GoTrue's shape on both cursor listings, never a 500 from the cast in SQL. And Express's
// `trust proxy` (the TRUSTED_PROXIES list): X-Forwarded-Proto counts only from a listed peer, so a client talking to
// the server directly cannot make a foreign https page's Origin pass the hosted session's cross-site write check.
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminCall } from '../admin/admin-helpers';
import { call } from '../helpers/http';

jest.setTimeout(120_000);

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const forged = (createdAt: string) => Buffer.from(JSON.stringify({ created_at: createdAt, id: randomUUID() })).toString('base64url');

describe.each(['/admin/audit', '/admin/users'])('a forged cursor on GET %s', (path) => {
  test.each([
    '2026-02-30T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '2026-01-01T00:00:00+16:00',
    '2026-01-01T00:00:00-23:59',
  ])('holding %s is refused as an invalid cursor', async (createdAt) => {
    const res = await adminCall(server, 'GET', `${path}?limit=5&cursor=${forged(createdAt)}`);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400, body: { code: 400, error_code: 'validation_failed', msg: 'Bad Pagination Parameters: invalid cursor' },
    });
  });

  test('a well-formed cursor still pages (the check refuses only what SQL cannot read)', async () => {
    const res = await adminCall(server, 'GET', `${path}?limit=5&cursor=${forged('2026-01-01T23:59:59.123456+15:59')}`);
    expect(res.status).toBe(200);
  });
});

describe('X-Forwarded-Proto and the hosted session\'s cross-site write check (an old browser: Origin, no Sec-Fetch-Site)', () => {
  const spoofed = (url: string) => ({ origin: `https://${new URL(url).host}`, 'x-forwarded-proto': 'https' });

  test('from a peer that is not a trusted proxy it changes nothing: an https Origin is another origin, refused', async () => {
    const res = await call(server.url, 'POST', '/hosted/session/end', { headers: spoofed(server.url) });
    expect({ status: res.status, msg: res.body.msg }).toEqual({ status: 403, msg: 'Cross-site request refused' });
  });

  test('from a listed proxy it names the scheme the browser used: the same https Origin is the server\'s own', async () => {
    const proxied = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
    try {
      const res = await call(proxied.url, 'POST', '/hosted/session/end', { headers: spoofed(proxied.url) });
      expect(res.status).toBe(204); // signed out already: nothing to end, but the write was let through
    } finally {
      await proxied.close();
    }
  });
});
