// /token request limit (reference §6.1): per client key from RATE_LIMIT_HEADER, burst 30, refill
// RATE_LIMIT_TOKEN_REFRESH per 5 minutes; no key → no limit.
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_TOKEN_REFRESH: '150' } });
});
afterAll(async () => {
  await server?.close();
});

const attempt = (client?: string) =>
  call(server.url, 'POST', '/token?grant_type=password', {
    body: { email: 'nobody@example.com', password: 'wrong-password' },
    headers: client ? { 'x-real-client': client } : {},
  });

it('allows a burst of 30, then 429 over_request_rate_limit until the bucket refills', async () => {
  for (let i = 0; i < 30; i++) expect((await attempt('10.0.0.1')).status).toBe(400);
  const limited = await attempt('10.0.0.1');
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' });
  expect((await attempt('10.0.0.2')).status).toBe(400); // another client has its own bucket
  server.clock.advance(2); // 150 per 300 s = one request every 2 s
  expect((await attempt('10.0.0.1')).status).toBe(400);
  expect((await attempt('10.0.0.1')).status).toBe(429);
});

it('requests without the header are not limited (as GoTrue)', async () => {
  for (let i = 0; i < 35; i++) expect((await attempt()).status).toBe(400);
});

describe('sign-up limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_ANONYMOUS_USERS: '3', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true', DISABLE_SIGNUP: 'false' },
    });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('anonymous sign-ins: RATE_LIMIT_ANONYMOUS_USERS per hour per client', async () => {
    const anon = () => call(limited.url, 'POST', '/signup', { body: {}, headers: { 'x-real-client': '10.1.1.1' } });
    for (let i = 0; i < 3; i++) expect((await anon()).status).toBe(200);
    const res = await anon();
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error_code: 'over_request_rate_limit' });
    limited.clock.advance(1200); // 3 per hour: one more after 20 minutes
    expect((await anon()).status).toBe(200);
  });
});
