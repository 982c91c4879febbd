// Per-group quotas (issue 27): zones per group and records per zone, from quotas.yml; over a limit is a 403
// naming it, through the API, the zone import, and for the group's next zone. An import over a quota answers as soon
// as it is over, not after reading the whole file (issue 38).
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus } from './dns-client';

let server: TestServer;
let alice: CookieClient;

beforeAll(async () => {
  server = await startTestServer({ quotas: { zonesPerGroup: 2, recordsPerZone: 3 } });
  await server.seedUser({ group: 'Quota', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Quota');
});
afterAll(async () => server?.close());

const newZone = (name: string) => alice.post('/zone', { zone: name, mailaddr: `hostmaster.${name}` });

test('records per zone: the 4th record is a 403 naming the limit; a deleted record frees its place', async () => {
  const zone = expectStatus(await newZone('one.quota.example.'), 201).body.zone;
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await addRecord(alice, zone.id, { owner: `h${i}`, type: 'A', address: `192.0.2.${i + 1}` })).id);
  const over = await alice.post('/zone_record', { zid: zone.id, owner: 'h9', type: 'A', address: '192.0.2.9' });
  expect(over.status).toBe(403);
  expect(over.body.message).toBe('The zone would exceed its limit of 3 records (quotas.yml records_per_zone)');
  expectStatus(await alice.delete(`/zone_record/${ids[0]}`), 200);
  expectStatus(await alice.post('/zone_record', { zid: zone.id, owner: 'h9', type: 'A', address: '192.0.2.9' }), 201);
});

test('a zone file over the record limit stops at the first record past it, not at the end of the file (issue 38)', async () => {
  const name = 'big.quota.example.';
  const lines = ['$TTL 3600', '@ IN SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600'];
  for (let i = 1; i <= 200_000; i++) lines.push(`h${i} IN A 192.0.2.${(i % 250) + 1}`);
  lines.push('bad IN A 192.0.2.300'); // a bad line at the end would be a 400 if the file were read to it
  const res = await alice.request('POST', `/zone/import?zone=${name}`, { raw: lines.join('\n'), headers: { 'content-type': 'text/dns' } });
  expect(res.status).toBe(403);
  // h4, the 4th record over a limit of 3, is on line 6: the import read no further.
  expect(res.body.message).toBe('The zone would exceed its limit of 3 records (quotas.yml records_per_zone); the import stopped at line 6');
  expect(await server.deps.db.selectFrom('dns.zones').select('id').where('name', '=', name).execute()).toEqual([]);
});

test('a zone file over the record limit is refused whole, and the zones per group count', async () => {
  const file = ['$TTL 3600', '@ IN SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600',
    ...[1, 2, 3, 4].map((i) => `h${i} IN A 192.0.2.${i}`)].join('\n');
  const big = await alice.request('POST', '/zone/import?zone=two.quota.example.', { raw: file, headers: { 'content-type': 'text/dns' } });
  expect(big.status).toBe(403);
  expect(big.body.message).toContain('records_per_zone');
  expect(await server.deps.db.selectFrom('dns.zones').select('id').where('name', '=', 'two.quota.example.').execute()).toEqual([]);
  expectStatus(await newZone('two.quota.example.'), 201);
  const third = await newZone('three.quota.example.');
  expect(third.status).toBe(403);
  expect(third.body.message).toBe('The group has reached its limit of 2 zones (quotas.yml zones_per_group)');
});

test('a group at its zone limit gets the 403 before its file is read', async () => {
  // The group holds 2 zones from the test above; a file of bad lines would otherwise answer 400 first.
  const file = ['$TTL 3600', '@ IN SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600', 'www IN A 192.0.2.300'].join('\n');
  const res = await alice.request('POST', '/zone/import?zone=four.quota.example.', { raw: file, headers: { 'content-type': 'text/dns' } });
  expect(res.status).toBe(403);
  expect(res.body.message).toBe('The group has reached its limit of 2 zones (quotas.yml zones_per_group)');
});

test('an imported file at the record limit fits: the NS and glue its nameservers give are not counted (issue 27)', async () => {
  const other = await startTestServer({ quotas: { zonesPerGroup: 0, recordsPerZone: 3 } });
  try {
    await other.seedUser({ group: 'Exact', username: 'erin', isAdmin: true });
    const erin = await other.login('erin@Exact');
    expectStatus(await erin.post('/nameserver', { name: 'ns1.exact.quota.example.', address: '192.0.2.53' }), 201);
    const file = ['$TTL 3600', '@ IN SOA ns1.exact.quota.example. hostmaster.example.net. 1 7200 3600 1209600 3600',
      '@ IN NS ns1.exact.quota.example.', 'ns1 IN A 192.0.2.53', ...[1, 2, 3].map((i) => `h${i} IN A 192.0.2.${i}`)].join('\n');
    const res = await erin.request('POST', '/zone/import?zone=exact.quota.example.', { raw: file, headers: { 'content-type': 'text/dns' } });
    expect(res.status).toBe(201);
    expect(res.body.records).toBe(3);
    expect(res.body.zone.nameservers).toHaveLength(1);
    const stored = await other.deps.db.selectFrom('dns.zone_records').select(['owner', 'type']).where('zone_id', '=', res.body.zone.id).orderBy('owner').execute();
    expect(stored).toEqual(['h1', 'h2', 'h3'].map((h) => ({ owner: `${h}.exact.quota.example.`, type: 'A' })));
    // Glue before its NS record, and the NS record last: still not counted while the file is read.
    expectStatus(await erin.post('/nameserver', { name: 'ns1.glue-first.quota.example.', address: '192.0.2.54', address6: '2001:db8::54' }), 201);
    const glueFirst = ['$TTL 3600', '@ IN SOA ns1.glue-first.quota.example. hostmaster.example.net. 1 7200 3600 1209600 3600',
      'ns1 IN A 192.0.2.54', 'ns1 IN AAAA 2001:db8::54', ...[1, 2, 3].map((i) => `h${i} IN A 192.0.2.${i}`), '@ IN NS ns1.glue-first.quota.example.'].join('\n');
    const second = await erin.request('POST', '/zone/import?zone=glue-first.quota.example.', { raw: glueFirst, headers: { 'content-type': 'text/dns' } });
    expect(second.status).toBe(201);
    expect(second.body.records).toBe(3);
  } finally {
    await other.close();
  }
});
