import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { supportRecords, typeFixtures } from '../dns/fixtures';
import { namedCheckzone } from '../dns/named-checkzone';
import { addRecord, expectStatus, newNameserver, newZone, uniqueZone, type Json } from './dns-client';

let server: TestServer;
let alice: CookieClient;

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  await server.seedUser({ group: 'files-acme', username: 'alice' });
  alice = await server.login('alice@files-acme');
});
afterAll(() => server?.close());

/** A zone holding every record type, built through the API, with an in-zone and an outside nameserver. */
async function everyTypeZone(): Promise<Json> {
  const name = uniqueZone('every');
  const inside = await newNameserver(alice, { name: `ns1.${name}`, address: '192.0.2.1', address6: '2001:db8::53' });
  const outside = await newNameserver(alice);
  const zone = await newZone(alice, { zone: name, nameservers: [inside.id, outside.id] });
  // ns1's glue comes from the nameserver's addresses, not from a record
  for (const r of supportRecords.filter((s) => s.owner !== 'ns1')) await addRecord(alice, zone.id, { owner: r.owner, type: r.type, ttl: r.ttl, ...r.rdata });
  for (const f of typeFixtures) await addRecord(alice, zone.id, { owner: f.owner, type: f.type, ttl: 3600, ...f.input });
  return zone;
}

const comparable = (records: Json[]) =>
  records.map(({ owner, type, ttl, id: _id, zid: _zid, description: _d, deleted: _x, ...rdata }) => JSON.stringify({ owner, type, ttl, rdata })).sort();
const withoutComment = (text: string) => text.split('\n').filter((l) => !l.startsWith(';')).join('\n');

describe('GET /zone/:id/export', () => {
  test('a zone holding every record type exports as text/dns that named-checkzone accepts', async () => {
    const zone = await everyTypeZone();
    const res = expectStatus(await alice.get(`/zone/${zone.id}/export`), 200);
    expect(res.headers.get('content-type')).toBe('text/dns; charset=utf-8');
    const text = res.text;
    expect(text).toContain(`$ORIGIN ${zone.zone}\n$TTL 3600\n@\t3600\tIN\tSOA\tns1.${zone.zone} hostmaster.${zone.zone} ${(await alice.get(`/zone/${zone.id}`)).body.zone.serial} 86400 7200 1209600 3600\n`);
    expect(text).toContain(`@\t3600\tIN\tNS\tns1.${zone.zone}`);
    expect(text).toContain('ns1\t3600\tIN\tAAAA\t2001:db8::53'); // glue from the nameserver's address6
    for (const f of typeFixtures) expect(text).toContain(`\tIN\t${f.type}\t${f.bind}`);
    const check = namedCheckzone(zone.zone, text);
    expect(check.output).toMatch(/OK/);
    expect(check.ok).toBe(true);
  });

  test("NS records and glue take the nameservers' TTLs, the NS set the lowest of them, as NicTool writes them (issue 27)", async () => {
    const name = uniqueZone('nsttl');
    const inside = await newNameserver(alice, { name: `ns1.${name}`, address: '192.0.2.1', ttl: 86400 });
    const outside = await newNameserver(alice, { ttl: 7200 });
    const zone = await newZone(alice, { zone: name, nameservers: [inside.id, outside.id] });
    const text = expectStatus(await alice.get(`/zone/${zone.id}/export`), 200).text;
    expect(text).toContain(`@\t7200\tIN\tNS\tns1.${name}`);
    expect(text).toContain(`@\t7200\tIN\tNS\t${outside.name}`);
    expect(text).toContain('ns1\t86400\tIN\tA\t192.0.2.1');
    expect(namedCheckzone(name, text).ok).toBe(true);
    const ns = expectStatus(await alice.get(`/zone/${zone.id}/ns`), 200).body.ns;
    expect(ns).toEqual([{ owner: name, ttl: 7200, dname: `ns1.${name}` }, { owner: name, ttl: 7200, dname: outside.name }]);
  });

  test('deleted records and deleted zones are not exported', async () => {
    const zone = await newZone(alice, { nameservers: [(await newNameserver(alice)).id] });
    const r = await addRecord(alice, zone.id, { owner: 'gone', type: 'A', address: '192.0.2.9' });
    await alice.delete(`/zone_record/${r.id}`);
    expect((await alice.get(`/zone/${zone.id}/export`)).text).not.toContain('gone');
    await alice.delete(`/zone/${zone.id}`);
    expect((await alice.get(`/zone/${zone.id}/export`)).status).toBe(404);
  });
});

describe('POST /zone/import', () => {
  test('import(export(zone)) through the API gives the same records, nameservers, SOA and zone file', async () => {
    const zone = await everyTypeZone();
    const records = (await alice.get(`/zone/${zone.id}/records?limit=1000`)).body.zone_record;
    const text = (await alice.get(`/zone/${zone.id}/export`)).text;
    const before = (await alice.get(`/zone/${zone.id}`)).body.zone;
    await alice.delete(`/zone/${zone.id}`);

    const res = expectStatus(await alice.post('/zone/import', { zone: zone.zone, zonefile: text, description: 'imported' }), 201);
    expect(res.body.records).toBe(records.length);
    expect(res.body.meta.msg).toBe(`the zone was imported with ${records.length} records`);
    const imported = res.body.zone;
    expect(imported).toMatchObject({
      zone: zone.zone, description: 'imported', nameservers: before.nameservers, serial: before.serial,
      mailaddr: before.mailaddr, refresh: before.refresh, retry: before.retry, expire: before.expire, minimum: before.minimum, ttl: before.ttl,
    });
    const after = (await alice.get(`/zone/${imported.id}/records?limit=1000`)).body.zone_record;
    expect(comparable(after)).toEqual(comparable(records));
    const again = (await alice.get(`/zone/${imported.id}/export`)).text;
    expect(withoutComment(again)).toBe(withoutComment(text));
    // every imported record has its create entry in the history
    const history = (await alice.get(`/zone/${imported.id}/history?limit=1000`)).body.history;
    expect(history.filter((e: Json) => e.object === 'zone_record' && e.action === 'create')).toHaveLength(records.length);
  });

  test('a file with bad lines answers 400 listing every one, and nothing is created', async () => {
    const name = uniqueZone('bad');
    const zonefile = [
      '$TTL 3600',
      '@ SOA ns1.example.net. hostmaster 1 2 3 4 5',
      '@ NS ns1.example.net.',
      'www A 192.0.2.300',
      'ok A 192.0.2.1',
      'mx MX ten mail',
      'alias CNAME www',
      'alias TXT "both"',
    ].join('\n');
    const res = await alice.post('/zone/import', { zone: name, zonefile });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: Json) => e.line)).toEqual([4, 6, 8]);
    expect(res.body.message).toMatch(/^The zone file has 3 bad line\(s\): line 4: .*IPv4.*; line 6: .*must be a number.*; line 8: .*cname_exclusive/);
    expect((await alice.get(`/zone?search=${name.slice(0, -1)}`)).body.zone).toEqual([]);
  });

  test('an existing zone name → 409 and nothing is written; unknown apex NS stay records', async () => {
    const zone = await newZone(alice);
    const file = '$TTL 300\n@ SOA ns.example.net. h.example.net. 7 2 3 4 5\n@ NS ns.unknown-provider.example.\nwww A 192.0.2.7\n';
    const dup = await alice.post('/zone/import', { zone: zone.zone, zonefile: file });
    expect(dup.status).toBe(409);
    expect((await alice.get(`/zone/${zone.id}/records`)).body.zone_record).toEqual([]);

    const name = uniqueZone();
    const res = expectStatus(await alice.post('/zone/import', { zone: name, zonefile: file }), 201);
    expect(res.body.zone).toMatchObject({ nameservers: [], serial: 7, ttl: 300, mailaddr: 'h.example.net.' });
    const records = (await alice.get(`/zone/${res.body.zone.id}/records`)).body.zone_record;
    expect(records.map((r: Json) => `${r.owner} ${r.type}`).sort()).toEqual([`${name} NS`, `www.${name} A`].sort());
  });

  test('the zone file may come as text/dns with ?zone=, beyond the JSON body limit', async () => {
    const name = uniqueZone('raw');
    const lines = ['$TTL 3600', '@ SOA ns.example.net. h.example.net. 1 2 3 4 5', '@ NS ns.example.net.'];
    for (let i = 0; i < 6000; i++) lines.push(`host${i} A 10.0.${i >> 8}.${i & 255}`);
    const zonefile = `${lines.join('\n')}\n`;
    expect(Buffer.byteLength(zonefile)).toBeGreaterThan(server.config.http.bodyLimit);
    expect((await alice.post('/zone/import', { zone: name, zonefile })).status).toBe(413);
    const res = expectStatus(await alice.request('POST', `/zone/import?zone=${name}&description=raw`, { raw: zonefile, headers: { 'content-type': 'text/dns' } }), 201);
    expect(res.body).toMatchObject({ records: 6001, zone: { zone: name, description: 'raw' } });
    const bad = await alice.request('POST', `/zone/import?zone=${uniqueZone()}`, { raw: 'www 60 A 1.2.3.4.5\n', headers: { 'content-type': 'text/dns' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ line: 1, message: expect.stringMatching(/IPv4/) }]);
    expect((await alice.request('POST', '/zone/import', { raw: zonefile, headers: { 'content-type': 'text/dns' } })).status).toBe(400);
  });

  test('a failure after the records are written rolls the whole import back (one transaction)', async () => {
    const name = uniqueZone('rollback');
    const file = '$TTL 300\n@ SOA ns.example.net. h.example.net. 4294967295 2 3 4 5\n@ NS ns.example.net.\nwww A 192.0.2.7\n';
    const audit = server.deps.audit;
    // The zone's audit entry is written after the zone, its nameservers and its records.
    server.deps.audit = { record: async (trx, entry) => (entry.objectType === 'zone' ? Promise.reject(new Error('audit store down')) : audit.record(trx, entry)) };
    try {
      const res = await alice.post('/zone/import', { zone: name, zonefile: file });
      expect(res.status).toBe(500);
    } finally {
      server.deps.audit = audit;
    }
    const db = server.database.db;
    expect(await db.selectFrom('dns.zones').select('id').where('name', '=', name).execute()).toEqual([]);
    expect(await db.selectFrom('dns.zone_records').select('id').where('owner', '=', `www.${name}`).execute()).toEqual([]);
    // and the same file imports once the store is back
    expect(expectStatus(await alice.post('/zone/import', { zone: name, zonefile: file }), 201).body.zone.serial).toBe(4294967295);
  });

  test('shape errors: missing zonefile, unknown key', async () => {
    expect((await alice.post('/zone/import', { zone: uniqueZone() })).status).toBe(400);
    expect((await alice.post('/zone/import', { zone: uniqueZone(), zonefile: 'x', extra: 1 })).status).toBe(400);
  });
});
