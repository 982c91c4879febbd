// Behind a trusted reverse proxy (issue 24): the audit history records the client's address, the right-most
// X-Forwarded-For entry that is not a trusted proxy; from an untrusted peer the header is ignored and one
// warning names the setting.
import { createLogger } from '@keyzone/logging';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const warnings: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
  await server.seedUser({ group: 'proxied', username: 'alice' });
});
afterAll(async () => {
  await server?.close();
});

async function zoneHistoryIp(test: TestServer, forwardedFor: string, name: string): Promise<string | null> {
  const alice = await test.login('alice@proxied');
  const headers = { 'x-forwarded-for': forwardedFor };
  const created = await alice.request('POST', '/zone', { json: { zone: name, mailaddr: 'hostmaster.example.com.' }, headers });
  expect(created.status).toBe(201);
  const history = await alice.get(`/zone/${created.body.zone.id}/history`);
  expect(history.status).toBe(200);
  return history.body.history[0].ip;
}

test('the client address, not the proxy\'s and not what the client wrote, goes into the history', async () => {
  expect(await zoneHistoryIp(server, '203.0.113.9, 192.0.2.80', 'proxied-one.example.')).toBe('192.0.2.80');
});

test('without a trusted proxy the header is ignored and one warning names the setting', async () => {
  const direct = await startTestServer({
    configure: (deps) => ({
      ...deps,
      log: createLogger({ name: 'warn-capture', level: 'warn', destination: { write: (line: string) => warnings.push(JSON.parse(line).msg) } }),
    }),
  });
  try {
    await direct.seedUser({ group: 'proxied', username: 'alice' });
    expect(await zoneHistoryIp(direct, '192.0.2.80', 'direct-one.example.')).toBe('127.0.0.1');
    expect(await zoneHistoryIp(direct, '192.0.2.81', 'direct-two.example.')).toBe('127.0.0.1');
    const warned = warnings.filter((m) => m.includes('not a trusted proxy'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('trusted_proxies');
  } finally {
    await direct.close();
  }
});

test('a console page served over TLS by a trusted proxy may write: its https Origin is the service\'s own origin', async () => {
  // An older browser sends Origin but no Sec-Fetch-Site; behind the proxy the request arrives over plain HTTP.
  const alice = await server.login('alice@proxied');
  const host = new URL(server.url).host;
  const headers = { origin: `https://${host}`, 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.4' };
  const created = await alice.request('POST', '/zone', { json: { zone: 'proxied-tls.example.', mailaddr: 'hostmaster.example.com.' }, headers });
  expect(created.status).toBe(201);
});

test('X-Forwarded-Proto from a peer that is not a trusted proxy does not make a foreign https Origin the own one', async () => {
  const direct = await startTestServer();
  try {
    await direct.seedUser({ group: 'proxied', username: 'alice' });
    const alice = await direct.login('alice@proxied');
    const host = new URL(direct.url).host;
    const headers = { origin: `https://${host}`, 'x-forwarded-proto': 'https' };
    const refused = await alice.request('POST', '/zone', { json: { zone: 'unproxied-tls.example.' }, headers });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/cross-site/);
  } finally {
    await direct.close();
  }
});
