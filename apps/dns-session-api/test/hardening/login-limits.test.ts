// Password logins are limited per client and per account, shared by instances through PostgreSQL (issue 27):
// a guesser gets the configured failed attempts per 5 minutes, then 429 with Retry-After, whether the account exists
// or not. Successful logins are not failures; they count only against the much larger logins per client (issue 38).
import { CookieClient } from '../helpers/client';
import { PASSWORD, startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let second: TestServer;
const security = { loginAttemptsPerClient: 8, loginAttemptsPerAccount: 4, loginsPerClient: 20 };

beforeAll(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' }, security });
  // A second instance on the same database: the buckets are rows, not memory.
  second = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' }, security, database: server.database });
  await server.seedUser({ group: 'Limited', username: 'alice' });
  await server.seedUser({ group: 'Scripted', username: 'bob' });
  for (let i = 1; i <= 6; i++) await server.seedUser({ group: `Office${i}`, username: 'colleague' });
});
afterAll(async () => {
  await second?.close();
  await server?.close();
});

const loginOn = (instance: TestServer, username: string, password: string, client: string) =>
  new CookieClient(instance.url).request('POST', '/session', { json: { username, password }, headers: { 'x-forwarded-for': client } });
const login = (username: string, password: string, client: string) => loginOn(server, username, password, client);

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

test('successful logins are not failures: a script signing in again and again, and colleagues behind one address', async () => {
  const office = '192.0.2.10';
  const statuses: number[] = [];
  // 6 logins of one account (its failure limit is 4) and 6 colleagues (the address's failure limit is 8).
  for (let i = 0; i < 6; i++) statuses.push((await login('bob@Scripted', PASSWORD, office)).status);
  for (let i = 1; i <= 6; i++) statuses.push((await login(`colleague@Office${i}`, PASSWORD, office)).status);
  expect(statuses).toEqual(Array(12).fill(200));
  // The failures are still counted in full: the account's 4, then 429 even with the right password.
  const failures: number[] = [];
  for (let i = 0; i < 5; i++) failures.push((await login('colleague@Office1', 'wrong-password', office)).status);
  expect(failures).toEqual([401, 401, 401, 401, 429]);
  expect((await login('colleague@Office1', PASSWORD, office)).status).toBe(429);
  expect((await login('colleague@Office2', PASSWORD, office)).status).toBe(200);
});

test("a guesser's own good logins buy no more guesses from its address", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) {
    statuses.push((await login(`victim${i}@Limited`, 'wrong-password', '192.0.2.20')).status);
    statuses.push((await login('colleague@Office3', PASSWORD, '192.0.2.20')).status);
  }
  // 8 failures with good logins between them; then the address is out of failures and waits, right password or not.
  expect(statuses).toEqual([...Array(7).fill([401, 200]).flat(), 401, 429, 429, 429]);
});

test('every login from one address counts against logins_per_client (20 per 5 minutes)', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await login('bob@Scripted', PASSWORD, '192.0.2.30')).status);
  expect(statuses).toEqual([...Array(20).fill(200), 429]);
  const limited = await login('bob@Scripted', PASSWORD, '192.0.2.30');
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBe(15); // 20 per 300 s: one more every 15 s
  expect((await login('bob@Scripted', PASSWORD, '192.0.2.31')).status).toBe(200);
  server.clock.advance(15);
  expect((await login('bob@Scripted', PASSWORD, '192.0.2.30')).status).toBe(200);
});

test('two instances share the counts', async () => {
  // Both instances at the same time, as two processes would be (the first one's clock moved on above).
  second.clock.advance((server.clock.now().getTime() - second.clock.now().getTime()) / 1000);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await loginOn(i % 2 ? second : server, 'shared@Limited', 'wrong-password', `198.51.100.${100 + i}`)).status);
  expect(statuses).toEqual([401, 401, 401, 401, 429]);
  // A success on one instance gives back only its own token, on the other's rows.
  const good: number[] = [];
  for (let i = 0; i < 10; i++) good.push((await loginOn(i % 2 ? second : server, 'colleague@Office4', PASSWORD, '198.51.100.200')).status);
  expect(good).toEqual(Array(10).fill(200));
  expect((await loginOn(second, 'colleague@Office4', 'wrong-password', '198.51.100.200')).status).toBe(401);
});
