// Where zones may be pulled from (import-axfr, a secondary's primary): an administrator of a group may ask for a
// transfer, which is a connection the server opens, so loopback, link-local (cloud metadata), unspecified and
// multicast addresses are refused unless dns.yml transfer_sources_allowed lists them. The test environment's dns.yml
// allows 127.0.0.0/8; this server runs with the shipped default (none).
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { newNameserver } from '../zones/dns-client';

let server: TestServer;
let admin: CookieClient;
let zoneId: number;

beforeAll(async () => {
  server = await startTestServer({
    configure: (deps) => ({ ...deps, config: { ...deps.config, dns: { ...deps.config.dns, transferSourcesAllowed: [] } } }),
  });
  await server.seedUser({ group: 'Sources', username: 'root', isAdmin: true });
  admin = await server.login('root@Sources');
  await newNameserver(admin, { name: 'ns1.sources.example.' });
  const created = await admin.post('/zone', { zone: 'sources.example.' });
  expect(created.status).toBe(201);
  zoneId = created.body.zone.id;
});
afterAll(() => server?.close());

const REFUSED_SOURCES = ['127.0.0.1', '127.8.9.10', '::1', '169.254.169.254', '0.0.0.0', '::', 'fe80::1', '224.0.0.251', '::ffff:127.0.0.1', '::ffff:7f00:1'];

test('import-axfr refuses to connect to the server\'s own host or a link-local address, naming the setting', async () => {
  for (const source of REFUSED_SOURCES) {
    const res = await admin.post('/zone/import-axfr', { zone: 'pulled.example.', server: source, port: 5432 });
    expect({ source, status: res.status }).toEqual({ source, status: 400 });
    expect(res.body.message).toMatch(/transfer_sources_allowed/);
  }
  expect((await admin.get('/zone?zone=pulled.example')).body.zone).toEqual([]);
});

test('a zone cannot be made a secondary of such an address; a private-network primary is accepted', async () => {
  for (const source of REFUSED_SOURCES) {
    const res = await admin.put(`/zone/${zoneId}/secondary`, { address: source, port: 6379 });
    expect({ source, status: res.status }).toEqual({ source, status: 400 });
    expect(res.body.message).toMatch(/primary address: .*transfer_sources_allowed/);
  }
  expect((await admin.get(`/zone/${zoneId}/secondary`)).status).toBe(404);
  const privateNetwork = await admin.put(`/zone/${zoneId}/secondary`, { address: '10.20.30.53' });
  expect(privateNetwork.status).toBe(200);
  expect(privateNetwork.body.secondary.primary.address).toBe('10.20.30.53');
});
