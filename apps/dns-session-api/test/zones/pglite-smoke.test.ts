// The zones API on embedded PGlite: the same queries (jsonb RDATA, recursive group CTEs, row locks, bulk
// insert) must work on both drivers.
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, rulesOf } from './dns-client';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ kind: 'pglite' });
});
afterAll(() => server?.close());

test('zone, records, rules, export, import and history on PGlite', async () => {
  await server.seedUser({ group: 'lite', username: 'alice' });
  const alice = await server.login('alice@lite');
  const ns = await newNameserver(alice);
  const zone = await newZone(alice, { zone: 'lite.example.', nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
  await addRecord(alice, zone.id, { owner: '@', type: 'MX', preference: 10, exchange: 'www.lite.example.' });
  expect(rulesOf(await alice.post('/zone_record', { zid: zone.id, owner: 'www', type: 'CNAME', cname: 'x.example.net.' }))).toEqual(['cname_exclusive', 'target_is_cname']);
  const text = expectStatus(await alice.get(`/zone/${zone.id}/export`), 200).text;
  expect(text).toContain('www\t3600\tIN\tA\t192.0.2.1');
  await alice.delete(`/zone/${zone.id}`);
  const imported = expectStatus(await alice.post('/zone/import', { zone: 'lite.example.', zonefile: text }), 201).body;
  expect(imported).toMatchObject({ records: 2, zone: { nameservers: [ns.id] } });
  const history = (await alice.get(`/zone/${imported.zone.id}/history`)).body.history;
  expect(history.map((e: { object: string }) => e.object)).toEqual(['zone', 'zone_record', 'zone_record']);
  expect((await alice.get('/zone?search=lite&include_subgroups=true')).body.meta.pagination).toEqual({ total: 1, filtered: 1, limit: 100, offset: 0 });
});
