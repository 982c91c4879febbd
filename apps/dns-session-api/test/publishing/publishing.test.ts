// Zones served by real nameservers (issue 19): changes made through the API reach a PowerDNS server over its
// HTTP API and a BIND server through zone files and a reload, checked with dig (A, AAAA, MX, long TXT, SRV,
// CAA, SOA serial). A stopped PowerDNS keeps its jobs queued (GET /nameserver/<id>/status shows it) and catches
// up in order once it is back; a deleted zone leaves both servers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, type Bind, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { type TestServer } from '../helpers/server';
import { addRecord, expectStatus } from '../zones/dns-client';

let stand: PublishingStand;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
const ZONE = 'published.example.';
const LONG_TEXT = 'v=spf1 ' + 'include:_spf.example.net '.repeat(14) + '~all';

beforeAll(async () => {
  stand = await startPublishingStand('publish', 'ns1.pdns.test.');
  ({ pdns, bind, server } = stand);
  await server.seedUser({ group: 'Publishers', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Publishers');
}, 120_000);

afterAll(async () => {
  await stand?.stop();
});

const onBoth = async (name: string, type: string, expected: string[]) => {
  await eventually(`${name} ${type} = ${expected.join(', ')} on PowerDNS`, async () => JSON.stringify(await dig(pdns.dnsPort, name, type)) === JSON.stringify([...expected].sort()));
  await eventually(`${name} ${type} = ${expected.join(', ')} on BIND`, async () => JSON.stringify(await dig(bind.dnsPort, name, type)) === JSON.stringify([...expected].sort()));
};

it('publishes a zone with A, AAAA, MX, long TXT, SRV and CAA to PowerDNS and BIND, then its changes and its deletion', async () => {
  const ns1 = expectStatus(await alice.post('/nameserver', { name: 'ns1.pdns.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201).body.nameserver;
  const ns2 = expectStatus(await alice.post('/nameserver', { name: 'ns2.bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201).body.nameserver;
  const zone = expectStatus(await alice.post('/zone', { zone: ZONE, mailaddr: 'hostmaster@published.example', nameservers: [ns1.id, ns2.id] }), 201).body.zone;
  const www = await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.80' });
  await addRecord(alice, zone.id, { owner: 'www', type: 'AAAA', ttl: 300, address: '2001:db8::80' });
  await addRecord(alice, zone.id, { owner: '@', type: 'MX', ttl: 300, preference: 10, exchange: 'mail.published.example.' });
  await addRecord(alice, zone.id, { owner: '@', type: 'TXT', ttl: 300, data: LONG_TEXT });
  await addRecord(alice, zone.id, { owner: '_sip._tcp', type: 'SRV', ttl: 300, priority: 10, weight: 5, port: 5060, target: 'sip.published.example.' });
  await addRecord(alice, zone.id, { owner: '@', type: 'CAA', ttl: 300, flags: 0, tag: 'issue', value: 'letsencrypt.org' });

  await onBoth(`www.${ZONE}`, 'A', ['192.0.2.80']);
  await onBoth(`www.${ZONE}`, 'AAAA', ['2001:db8::80']);
  await onBoth(ZONE, 'MX', ['10 mail.published.example.']);
  await onBoth(`_sip._tcp.${ZONE}`, 'SRV', ['10 5 5060 sip.published.example.']);
  await onBoth(ZONE, 'CAA', ['0 issue "letsencrypt.org"']);
  const txt = await dig(pdns.dnsPort, ZONE, 'TXT');
  expect(txt.join('').replace(/" "/g, '').replace(/"/g, '')).toBe(LONG_TEXT);
  expect(await dig(bind.dnsPort, ZONE, 'TXT')).toEqual(txt);
  // NSD and Knot read the same list in their own syntax.
  expect(readFileSync(path.join(bind.zonesDir, 'keyzone-zones.nsd.conf'), 'utf8')).toContain(`name: "published.example"\n  zonefile: "${bind.zonesDir}/published.example.zone"`);
  expect(readFileSync(path.join(bind.zonesDir, 'keyzone-zones.knot.conf'), 'utf8')).toContain(`- domain: "published.example"\n    file: "${bind.zonesDir}/published.example.zone"`);
  const serial = String((await alice.get(`/zone/${zone.id}`)).body.zone.serial);
  await onBoth(ZONE, 'SOA', [`ns1.pdns.test. hostmaster.published.example. ${serial} ${zone.refresh} ${zone.retry} ${zone.expire} ${zone.minimum}`]);

  expectStatus(await alice.put(`/zone_record/${www.id}`, { address: '192.0.2.81' }), 200);
  await onBoth(`www.${ZONE}`, 'A', ['192.0.2.81']);
  expectStatus(await alice.delete(`/zone_record/${www.id}`), 200);
  await onBoth(`www.${ZONE}`, 'A', []);

  const status = (await alice.get(`/nameserver/${ns1.id}/status`)).body.status;
  expect(status).toMatchObject({ nameserver_id: ns1.id, queued: 0, last_error: null });
  expect(status.last_success_at).toBeTruthy();

  // PowerDNS goes away: the change waits in the queue, in order, and arrives when it is back.
  await pdns.stop();
  const api = await addRecord(alice, zone.id, { owner: 'api', type: 'A', ttl: 300, address: '192.0.2.90' });
  expectStatus(await alice.put(`/zone_record/${api.id}`, { address: '192.0.2.91' }), 200);
  await eventually('the failure to show', async () => {
    const s = (await alice.get(`/nameserver/${ns1.id}/status`)).body.status;
    return s.queued > 0 && typeof s.last_error === 'string';
  });
  // BIND, served by its own jobs, is not held back by PowerDNS's.
  await eventually('BIND to have the change', async () => JSON.stringify(await dig(bind.dnsPort, `api.${ZONE}`, 'A')) === '["192.0.2.91"]');
  await pdns.start();
  server.clock.advance(5); // past the retry backoff (max_retry_seconds 1)
  await onBoth(`api.${ZONE}`, 'A', ['192.0.2.91']);
  await eventually('the queue to empty', async () => (await alice.get(`/nameserver/${ns1.id}/status`)).body.status.queued === 0);

  expectStatus(await alice.delete(`/zone/${zone.id}`), 200);
  await eventually('the zone to leave PowerDNS', async () =>
    (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${ZONE}`, { headers: { 'x-api-key': pdns.apiKey } })).status === 404);
  await onBoth(`api.${ZONE}`, 'A', []);
}, 180_000);
