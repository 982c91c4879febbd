// Zones that existed before publishing was turned on (or came from import-nictool) are queued by
// `publish --all [--nameserver <id>]`, and the status route says when a nameserver has no target (issue 25).
import type { DnsConfig } from '@keyzone/config';
import { enqueueAllZones } from '../../src/publishing/queue';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let alice: CookieClient;
const ids: Record<string, number> = {};

beforeAll(async () => {
  server = await startTestServer(); // publishing off, as before an operator turns it on
  await server.seedUser({ group: 'Before', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Before');
  for (const [name, type] of [['ns1.pdns.test.', 'powerdns'], ['ns2.bind.test.', 'bind'], ['ns3.nowhere.test.', 'powerdns']] as const) {
    const res = await alice.post('/nameserver', { name, address: '192.0.2.1', export: { type } });
    expect(res.status).toBe(201);
    ids[name] = res.body.nameserver.id;
  }
  for (const zone of ['one.example.', 'two.example.']) {
    const res = await alice.post('/zone', { zone, mailaddr: `hostmaster.${zone}`, nameservers: Object.values(ids) });
    expect(res.status).toBe(201);
  }
  const gone = await alice.post('/zone', { zone: 'gone.example.', mailaddr: 'hostmaster.gone.example.', nameservers: Object.values(ids) });
  expect((await alice.delete(`/zone/${gone.body.zone.id}`)).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

const enabled: DnsConfig['publish'] = {
  enabled: true, pollSeconds: 5, timeoutSeconds: 5, maxRetrySeconds: 60,
  powerdns: { 'ns1.pdns.test.': { url: 'http://127.0.0.1:9/api', apiKey: 'k', serverId: 'localhost' } },
  zoneFiles: { directory: '/nonexistent', includeFile: '/nonexistent/zones.conf', reloadCommand: [] },
};

const jobs = async () =>
  (await server.deps.db.selectFrom('dns.publish_jobs').select(['nameserver_id', 'zone_id']).execute()).length;

test('the status route says why a nameserver is not published', async () => {
  const status = await alice.get(`/nameserver/${ids['ns1.pdns.test.']}/status`);
  expect(status.status).toBe(200);
  expect(status.body.status).toMatchObject({ queued: 0, not_published: 'publishing is off (publish.yml enabled: false)' });
});

test('--all queues every live zone for each nameserver with a target, and names those without one', async () => {
  expect(await jobs()).toBe(0);
  const result = await enqueueAllZones(server.deps.db, enabled, server.clock.now());
  expect(result.queued).toBe(4); // two live zones × ns1 (powerdns) and ns2 (zone files); the deleted zone is not
  expect(result.skipped).toEqual([{ id: ids['ns3.nowhere.test.'], name: 'ns3.nowhere.test.', reason: 'publish.yml has no powerdns target for ns3.nowhere.test.' }]);
  expect(await jobs()).toBe(4);
  const one = await enqueueAllZones(server.deps.db, enabled, server.clock.now(), ids['ns2.bind.test.']);
  expect(one).toEqual({ queued: 2, skipped: [] });
  await expect(enqueueAllZones(server.deps.db, enabled, server.clock.now(), 999_999)).rejects.toThrow('no live nameserver with id 999999');
});
