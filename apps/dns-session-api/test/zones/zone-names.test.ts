// Zone names the nameservers take (issue 38.3). BIND's check-names refuses an SOA whose mailbox is at a name that
// is not a host name, so the default mailbox of an RFC 2317 zone (0/26.2.0.192.in-addr.arpa.) is at its nearest
// host-name ancestor; a given mailbox must be at a host name. Zone names themselves: BIND and PowerDNS load
// "0/26…", "_tcp…", "x-…" (checked here on both), and Keyzone refuses only a name beginning with "-" (a reload
// command would read it as an option, so it could never be published) at creation, import and restore (a
// zone is never renamed).
import { sql } from 'kysely';
import { defaultMailbox, wireLength } from '../../src/dns';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, type Bind, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { type TestServer } from '../helpers/server';
import { namedCheckzone } from '../dns/named-checkzone';
import { addRecord, expectStatus, rulesOf, uniqueZone } from './dns-client';

let stand: PublishingStand;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
let nameservers: number[];

const LONG_ZONE = `${['a'.repeat(63), 'a'.repeat(63), 'a'.repeat(63)].join('.')}.${'b'.repeat(61)}.`;

beforeAll(async () => {
  stand = await startPublishingStand('zone-names', 'ns1.names-pdns.test.');
  ({ pdns, bind, server } = stand);
  await server.seedUser({ group: 'Names', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Names');
  const ns1 = expectStatus(await alice.post('/nameserver', { name: 'ns1.names-pdns.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201);
  const ns2 = expectStatus(await alice.post('/nameserver', { name: 'ns2.names-bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201);
  nameservers = [ns1.body.nameserver.id, ns2.body.nameserver.id];
}, 120_000);

afterAll(async () => {
  await stand?.stop();
});

const soaFile = (zone: string, rname: string) =>
  `$ORIGIN ${zone}\n$TTL 3600\n@ SOA ns1.names-pdns.test. ${rname} 1 3600 600 86400 3600\n@ NS ns1.names-pdns.test.\n`;

test('the default mailbox is at the nearest ancestor that is a host name and fits in 255 octets', () => {
  expect(defaultMailbox('example.com.')).toBe('hostmaster.example.com.');
  expect(defaultMailbox('0/26.2.0.192.in-addr.arpa.')).toBe('hostmaster.2.0.192.in-addr.arpa.');
  expect(defaultMailbox('_tcp.x-.example.')).toBe('hostmaster.example.');
  expect(defaultMailbox('a_b.')).toBe('hostmaster.');
  const long = defaultMailbox(LONG_ZONE);
  expect(long).toBe(`hostmaster.${['a'.repeat(63), 'a'.repeat(63)].join('.')}.${'b'.repeat(61)}.`);
  expect(wireLength(long)).toBeLessThanOrEqual(255);
  // What BIND refuses and why: the mailbox the RFC 2317 zone used to get; the one it gets now loads.
  const zone = '0/26.2.0.192.in-addr.arpa.';
  const refused = namedCheckzone(zone, soaFile(zone, `hostmaster.${zone}`));
  expect(refused.ok).toBe(false);
  expect(refused.output).toContain('bad name (check-names)');
  expect(namedCheckzone(zone, soaFile(zone, defaultMailbox(zone)))).toMatchObject({ ok: true });
});

test('zones whose names are not host names get a mailbox BIND loads, and both nameservers serve them', async () => {
  // The longest name's zone file gets a hashed name (its escaped name would not fit in a file name) on BIND.
  const zones = ['0/26.2.0.192.in-addr.arpa.', '_tcp.names.example.', 'x-.names.example.', 'in.-inner.names.example.', '/x.names.example.', LONG_ZONE];
  for (const name of zones) {
    const zone = expectStatus(await alice.post('/zone', { zone: name, nameservers }), 201).body.zone;
    expect(zone.mailaddr).toBe(defaultMailbox(name));
    if (name.startsWith('0/26')) await addRecord(alice, zone.id, { owner: '1', type: 'PTR', dname: 'host1.names.example.' });
    const exported = await alice.request('GET', `/zone/${zone.id}/export`);
    expect(exported.status).toBe(200);
    expect(namedCheckzone(name, exported.text)).toMatchObject({ ok: true });
    const soa = `ns1.names-pdns.test. ${zone.mailaddr} ${(await alice.get(`/zone/${zone.id}`)).body.zone.serial} 86400 7200 1209600 3600`;
    for (const [server, port] of [['PowerDNS', pdns.dnsPort], ['BIND', bind.dnsPort]] as const) {
      await eventually(`${name} SOA on ${server}`, async () => (await dig(port, name, 'SOA')).join() === soa);
    }
  }
  for (const port of [pdns.dnsPort, bind.dnsPort]) {
    await eventually('the RFC 2317 PTR', async () => (await dig(port, '1.0/26.2.0.192.in-addr.arpa.', 'PTR')).join() === 'host1.names.example.');
  }
});

test('a mailbox (SOA, RP) at a name that is not a host name is a 400, through the API and in an imported file', async () => {
  const res = await alice.post('/zone', { zone: uniqueZone(), mailaddr: 'hostmaster@0/26.2.0.192.in-addr.arpa' });
  expect(res.status).toBe(400);
  expect(rulesOf(res)).toEqual(['mailbox_domain']);
  expect(res.body.message).toContain('"0/26" is not');
  const zone = expectStatus(await alice.post('/zone', { zone: uniqueZone(), nameservers }), 201).body.zone;
  expect(rulesOf(await alice.put(`/zone/${zone.id}`, { mailaddr: 'dns@a_b.example' }))).toEqual(['mailbox_domain']);
  // A dot in the mailbox's own part is escaped, and any character may be there: only the domain must be a host name.
  expect((await alice.put(`/zone/${zone.id}`, { mailaddr: 'dns.admin_1@example.com' })).body.zone.mailaddr).toBe('dns\\.admin_1.example.com.');
  // RP's mailbox too (BIND checks it as it checks the SOA's), while its TXT name may be any name.
  const rp = await alice.post('/zone_record', { zid: zone.id, owner: 'www', type: 'RP', mbox: 'dns.a_b.example.', txt: '.' });
  expect(rulesOf(rp)).toEqual(['mailbox_domain']);
  await addRecord(alice, zone.id, { owner: 'www', type: 'RP', mbox: 'dns_admin.example.com.', txt: 'info_x.example.com.' });
  expect(namedCheckzone(zone.zone, (await alice.request('GET', `/zone/${zone.id}/export`)).text)).toMatchObject({ ok: true });
  const name = uniqueZone();
  const imported = await alice.request('POST', `/zone/import?zone=${name}`, { raw: soaFile(name, 'hostmaster.x-.example.'), headers: { 'content-type': 'text/dns' } });
  expect(imported.status).toBe(400);
  expect(imported.body.errors).toEqual([{ line: 3, message: expect.stringContaining('"x-" is not') }]);
});

test('a zone name beginning with "-" is a 400 naming the rule: create, import, restore', async () => {
  const created = await alice.post('/zone', { zone: '-lead.names.example.', nameservers });
  expect(created.status).toBe(400);
  expect(rulesOf(created)).toEqual(['leading_hyphen']);
  expect(created.body.message).toBe('Invalid zone: zone (leading_hyphen): zone may not begin with "-": a nameserver\'s reload command would read it as an option');
  // Inner labels may begin or end with "-": both nameservers load such a zone.
  const zone = expectStatus(await alice.post('/zone', { zone: 'ok.-inner.names.example.' }), 201).body.zone;
  expect(zone.zone).toBe('ok.-inner.names.example.');
  const imported = await alice.request('POST', '/zone/import?zone=-imported.names.example.', {
    raw: soaFile('-imported.names.example.', 'hostmaster.example.com.'), headers: { 'content-type': 'text/dns' },
  });
  expect(imported.status).toBe(400);
  expect(rulesOf(imported)).toEqual(['leading_hyphen']);
  // A zone stored before the rule, deleted, does not come back under that name.
  const legacy = expectStatus(await alice.post('/zone', { zone: 'legacy.names.example.' }), 201).body.zone;
  expectStatus(await alice.delete(`/zone/${legacy.id}`), 200);
  await sql`update dns.zones set name = '-legacy.names.example.' where id = ${legacy.id}`.execute(server.deps.db);
  const restored = await alice.put(`/zone/${legacy.id}`, { deleted: false });
  expect(restored.status).toBe(400);
  expect(rulesOf(restored)).toEqual(['leading_hyphen']);
  expect(await server.deps.db.selectFrom('dns.zones').select('name').where('name', 'like', '-%').execute()).toEqual([{ name: '-legacy.names.example.' }]);
});
