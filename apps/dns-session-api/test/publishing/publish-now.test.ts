// "Publish now" (issue 42): POST /nameserver/<id>/publish and POST /zone/<id>/publish against a real PowerDNS and
// BIND. A copy changed or removed on PowerDNS behind Keyzone's back stays wrong (no job names it) until publish-now
// compares the whole zone again; another group's nameserver or zone gets GET's answer; bad ids are 4xx.
import type { CookieClient } from '../helpers/client';
import { dig, eventually, type Bind, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { type TestServer } from '../helpers/server';
import { addRecord, expectStatus, type Json } from '../zones/dns-client';

jest.setTimeout(120_000);

const PDNS_NAME = 'ns1.pdns.test.';
let stand: PublishingStand;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
let ns1: Json;
let ns2: Json;

beforeAll(async () => {
  stand = await startPublishingStand('publish-now', PDNS_NAME);
  ({ pdns, bind, server } = stand);
  const { groupId } = await server.seedUser({ group: 'Publishers', username: 'alice', isAdmin: true });
  await server.seedUser({ group: 'Others', username: 'bob', isAdmin: true });
  await server.seedSubgroupUser({ parentId: groupId, group: 'Branch', username: 'carol', isAdmin: true });
  alice = await server.login('alice@Publishers');
  ns1 = expectStatus(await alice.post('/nameserver', { name: PDNS_NAME, address: '192.0.2.1', export: { type: 'powerdns' } }), 201).body.nameserver;
  ns2 = expectStatus(await alice.post('/nameserver', { name: 'ns2.bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201).body.nameserver;
}, 120_000);

afterAll(async () => {
  await stand?.stop();
});

async function powerDnsApi(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${pdns.apiUrl}/api/v1/servers/localhost${path}`, {
    method, headers: { 'x-api-key': pdns.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const answers = (server: { dnsPort: number }, name: string, type: string, expected: string[]) =>
  eventually(`${name} ${type} = ${expected.join(', ')}`, async () => JSON.stringify(await dig(server.dnsPort, name, type)) === JSON.stringify(expected));

async function publishedZone(name: string, address: string): Promise<Json> {
  const zone = expectStatus(await alice.post('/zone', { zone: name, mailaddr: `hostmaster@${name.slice(0, -1)}`, nameservers: [ns1.id, ns2.id] }), 201).body.zone;
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address });
  await answers(pdns, `www.${name}`, 'A', [address]);
  await answers(bind, `www.${name}`, 'A', [address]);
  return zone;
}

/** Nothing queued and nothing being published: what PowerDNS serves now stays until something is queued. */
async function settled(): Promise<void> {
  await eventually('the publish queue to empty', async () =>
    (await server.deps.db.selectFrom('dns.publish_jobs').select('id').limit(1).execute()).length === 0);
  await server.deps.publisher?.idle();
}

test('POST /nameserver/<id>/publish brings back a zone removed from PowerDNS and a record changed there', async () => {
  const gone = await publishedZone('gone-now.example.', '192.0.2.10');
  const stale = await publishedZone('stale-now.example.', '192.0.2.20');
  await settled();
  expect((await powerDnsApi('DELETE', `/zones/${gone.zone}`)).status).toBe(204);
  const patched = await powerDnsApi('PATCH', `/zones/${stale.zone}`, {
    rrsets: [{ name: `www.${stale.zone}`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '198.51.100.66', disabled: false }] }],
  });
  expect(patched.status).toBe(204);
  await answers(pdns, `www.${stale.zone}`, 'A', ['198.51.100.66']);
  await answers(pdns, `www.${gone.zone}`, 'A', []);
  // No job names these zones, so the publisher leaves PowerDNS as it is.
  await settled();
  expect(await dig(pdns.dnsPort, `www.${stale.zone}`, 'A')).toEqual(['198.51.100.66']);

  const res = expectStatus(await alice.post(`/nameserver/${ns1.id}/publish`, {}), 202);
  expect(res.body.status).toMatchObject({ nameserver_id: ns1.id, not_published: null });
  expect(res.body.meta.msg).toBe('publishing 2 zone(s) to this nameserver now');
  await answers(pdns, `www.${gone.zone}`, 'A', ['192.0.2.10']);
  await answers(pdns, `www.${stale.zone}`, 'A', ['192.0.2.20']);
  await settled();
  const status = expectStatus(await alice.get(`/nameserver/${ns1.id}/status`), 200).body.status;
  expect(status).toMatchObject({ queued: 0, last_error: null });
});

test('POST /zone/<id>/publish re-publishes one zone on each of its nameservers', async () => {
  const zone = await publishedZone('zone-now.example.', '192.0.2.30');
  const other = await publishedZone('untouched-now.example.', '192.0.2.40');
  await settled();
  for (const z of [zone, other]) {
    expect((await powerDnsApi('PATCH', `/zones/${z.zone}`, {
      rrsets: [{ name: `www.${z.zone}`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '198.51.100.77', disabled: false }] }],
    })).status).toBe(204);
  }
  const res = expectStatus(await alice.post(`/zone/${zone.id}/publish`, {}), 202);
  expect(res.body.publish).toEqual({
    zone_id: zone.id, queued: 2,
    nameservers: [{ id: ns1.id, name: PDNS_NAME, not_published: null }, { id: ns2.id, name: 'ns2.bind.test.', not_published: null }],
  });
  await answers(pdns, `www.${zone.zone}`, 'A', ['192.0.2.30']);
  await settled();
  // Only that zone: the other one's copy stays as it was left.
  expect(await dig(pdns.dnsPort, `www.${other.zone}`, 'A')).toEqual(['198.51.100.77']);
  expect(await dig(bind.dnsPort, `www.${zone.zone}`, 'A')).toEqual(['192.0.2.30']);
});

test('a key waiting out a backoff is due at once, and a whole-zone job still waiting is not queued twice', async () => {
  const zone = await publishedZone('backoff-now.example.', '192.0.2.50');
  await settled();
  await server.deps.publisher?.stop();
  try {
    const later = new Date(server.clock.now().getTime() + 3_600_000);
    await server.deps.db.insertInto('dns.publish_jobs')
      .values({ nameserver_id: ns1.id, zone_id: zone.id, created_at: server.clock.now(), next_attempt_at: later, attempts: 5, last_error: 'an earlier failure' })
      .execute();
    const first = expectStatus(await alice.post(`/zone/${zone.id}/publish`, {}), 202).body.publish;
    expect(first.queued).toBe(1); // ns2 only: ns1's waiting job is a whole-zone one already
    const second = expectStatus(await alice.post(`/zone/${zone.id}/publish`, {}), 202).body.publish;
    expect(second.queued).toBe(0);
    const jobs = await server.deps.db.selectFrom('dns.publish_jobs').select(['nameserver_id', 'next_attempt_at']).where('zone_id', '=', zone.id).execute();
    expect(jobs).toHaveLength(2);
    for (const job of jobs) expect(new Date(job.next_attempt_at).getTime()).toBeLessThanOrEqual(server.clock.now().getTime());
  } finally {
    server.deps.publisher?.start();
  }
  await settled();
});

test('another group gets the answer GET gives it; a group below may not publish a nameserver above it', async () => {
  const zone = await publishedZone('tenancy-now.example.', '192.0.2.60');
  const bob = await server.login('bob@Others');
  for (const [read, write] of [[`/nameserver/${ns1.id}`, `/nameserver/${ns1.id}/publish`], [`/zone/${zone.id}`, `/zone/${zone.id}/publish`]] as const) {
    const seen = await bob.get(read);
    const refused = await bob.post(write, {});
    expect(seen.status).toBe(403);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: seen.status, body: seen.body });
  }
  const carol = await server.login('carol@Branch');
  expect((await carol.get(`/nameserver/${ns1.id}`)).status).toBe(200); // usable below, not changeable
  const refused = await carol.post(`/nameserver/${ns1.id}/publish`, {});
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  expect((await carol.post(`/zone/${zone.id}/publish`, {})).status).toBe(403);
  expect((await server.client().post(`/zone/${zone.id}/publish`, {})).status).toBe(401);
});

test('bad, unknown and deleted ids are 4xx in the error shape; a nameserver nothing is published to is a 409', async () => {
  for (const path of ['/nameserver/abc/publish', '/nameserver/0/publish', '/zone/-1/publish', '/zone/99999999999/publish', `/zone/1/publish?now=1`]) {
    const res = await alice.post(path, {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  }
  expect((await alice.post(`/zone/1/publish`, { all: true })).status).toBe(400);
  expect(await alice.post('/nameserver/999999/publish', {})).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Nameserver not found' } });
  expect(await alice.post('/zone/999999/publish', {})).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Zone not found' } });

  const nowhere = expectStatus(await alice.post('/nameserver', { name: 'ns3.nowhere.test.', address: '192.0.2.3', export: { type: 'powerdns' } }), 201).body.nameserver;
  const lonely = expectStatus(await alice.post('/zone', { zone: 'lonely-now.example.', mailaddr: 'hostmaster@lonely-now.example', nameservers: [nowhere.id] }), 201).body.zone;
  expect(await alice.post(`/nameserver/${nowhere.id}/publish`, {})).toMatchObject({
    status: 409, body: { statusCode: 409, message: 'Nothing is published to ns3.nowhere.test.: publish.yml has no powerdns target for ns3.nowhere.test.' },
  });
  expect(await alice.post(`/zone/${lonely.id}/publish`, {})).toMatchObject({ status: 409, body: { statusCode: 409, message: expect.stringContaining('ns3.nowhere.test. (publish.yml has no powerdns target') } });
  expect(expectStatus(await alice.delete(`/zone/${lonely.id}`), 200).body.zone.deleted).toBe(true);
  expect((await alice.post(`/zone/${lonely.id}/publish`, {})).status).toBe(404);
  expect(expectStatus(await alice.delete(`/nameserver/${nowhere.id}`), 200).body.nameserver.deleted).toBe(true);
  expect((await alice.post(`/nameserver/${nowhere.id}/publish`, {})).status).toBe(404);
});
