// Password logins are limited per client and per account, shared by instances through PostgreSQL (issue 27):
// a guesser gets the configured attempts per 5 minutes, then 429 with Retry-After, whether the account exists
// or not.
import { CookieClient } from '../helpers/client';
import { PASSWORD, startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' }, security: { loginAttemptsPerClient: 8, loginAttemptsPerAccount: 4 } });
  await server.seedUser({ group: 'Limited', username: 'alice' });
});
afterAll(async () => server?.close());

const login = (username: string, password: string, client: string) =>
  new CookieClient(server.url).request('POST', '/session', { json: { username, password }, headers: { 'x-forwarded-for': client } });

test('per account: 4 attempts per 5 minutes, known and unknown accounts alike, from any address', async () => {
  for (const account of ['alice@Limited', 'nobody@Limited']) {
    for (let i = 0; i < 4; i++) expect((await login(account, 'wrong-password', `198.51.100.${i}`)).status).toBe(401);
    const limited = await login(account, 'wrong-password', '198.51.100.50');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Too many login attempts; try again later' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  // Even the right password waits (the limit is taken before the password is checked), in any spelling.
  expect((await login('ALICE@limited', PASSWORD, '198.51.100.60')).status).toBe(429);
  server.clock.advance(75); // 4 per 300 s: one more every 75 s
  expect((await login('alice@Limited', PASSWORD, '198.51.100.61')).status).toBe(200);
});

test('per client: 8 attempts per 5 minutes across accounts', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await login(`user${i}@Limited`, 'wrong-password', '203.0.113.9')).status);
  expect(statuses.slice(0, 8).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(8)).toEqual([429, 429]);
  expect((await login('user99@Limited', 'wrong-password', '203.0.113.10')).status).toBe(401); // another client
});
