import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { failingRdata, goodRdata, typeFixtures } from '../dns/fixtures';
import { addRecord, expectStatus, newZone, rulesOf, type Json } from './dns-client';

let server: TestServer;
let alice: CookieClient;

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  await server.seedUser({ group: 'rec-acme', username: 'alice' });
  alice = await server.login('alice@rec-acme');
});
afterAll(() => server?.close());

describe('zone records: one of each type', () => {
  let zone: Json;
  beforeAll(async () => {
    zone = await newZone(alice);
  });

  test.each(typeFixtures.map((f) => [f.type, f] as const))('%s is created with its RFC fields, stored normalized', async (type, f) => {
    const res = expectStatus(await alice.post('/zone_record', { zid: zone.id, owner: f.owner, type, ttl: 300, ...f.input }), 201);
    const owner = f.owner === '@' ? zone.zone : `${f.owner}.${zone.zone}`;
    expect(res.body).toEqual({
      zone_record: { id: expect.any(Number), zid: zone.id, owner, type, ttl: 300, description: '', deleted: false, ...(f.wire ?? f.stored ?? f.input) },
      meta: { api: { version: expect.any(String) }, msg: 'the zone record was created' },
    });
    expect(expectStatus(await alice.get(`/zone_record/${res.body.zone_record.id}`), 200).body.zone_record).toEqual(res.body.zone_record);
  });
});

describe('zone records: every per-type rule fails through the API', () => {
  let zone: Json;
  beforeAll(async () => {
    zone = await newZone(alice);
  });

  test.each(failingRdata)('%s %j → 400 naming %s (%s)', async (type, changes, field, rule) => {
    const body: Record<string, unknown> = { zid: zone.id, owner: 'host', type, ...goodRdata(type), ...changes };
    for (const [k, v] of Object.entries(changes)) if (v === undefined) delete body[k];
    const res = await alice.post('/zone_record', body);
    expect(res.status).toBe(400);
    expect(res.body.statusCode).toBe(400);
    if (res.body.errors) {
      // the service's DNS rules: field and rule named in the message and in errors[]
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field, rule }));
      expect(res.body.message).toContain(`${field} (${rule})`);
    } else {
      // the request schema caught the wrong JSON type first: the field is named
      expect(res.body.message).toContain(`"${field}"`);
    }
  });

  test.each([
    [{ owner: 'host', type: 'A', address: '192.0.2.1', ttl: -1 }, 'ttl', 'ttl'],
    [{ owner: 'a.*', type: 'A', address: '192.0.2.1' }, 'owner', 'wildcard'],
    [{ owner: '_srv', type: 'A', address: '192.0.2.1' }, 'owner', 'hostname_ldh'],
    [{ owner: 'host', type: 'A', cname: 'x.example.' }, 'cname', 'unknown_field'],
    [{ owner: 'www.elsewhere.example.', type: 'A', address: '192.0.2.1' }, 'owner', 'outside_zone'],
  ])('%j → 400 naming %s (%s)', async (body, field, rule) => {
    const res = await alice.post('/zone_record', { zid: zone.id, ...body });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field, rule }));
  });

  test('an unsupported type and an unknown zone', async () => {
    expect((await alice.post('/zone_record', { zid: zone.id, owner: 'x', type: 'HINFO', data: 'x' })).status).toBe(400);
    expect((await alice.post('/zone_record', { zid: 999999, owner: 'x', type: 'A', address: '192.0.2.1' })).status).toBe(404);
  });
});

describe('zone records: zone rules (reference §7.3) through the API', () => {
  let zone: Json;
  beforeEach(async () => {
    zone = await newZone(alice);
  });
  const post = (body: Record<string, unknown>) => alice.post('/zone_record', { zid: zone.id, ...body });

  test('CNAME alone at its owner, both ways round', async () => {
    await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
    const res = await post({ owner: 'www', type: 'CNAME', cname: 'x.example.net.' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'type', rule: 'cname_exclusive' })]);
    expect(res.body.message).toMatch(/^Invalid zone record: type \(cname_exclusive\): RRset www\..* IN CNAME: a CNAME must be alone/);
    await addRecord(alice, zone.id, { owner: 'alias', type: 'CNAME', cname: 'x.example.net.' });
    expect(rulesOf(await post({ owner: 'alias', type: 'TXT', data: 'hi' }))).toEqual(['cname_exclusive']);
    expect(rulesOf(await post({ owner: 'alias', type: 'CNAME', cname: 'y.example.net.' }))).toEqual(['cname_single']);
  });

  test('no CNAME at the apex, no DS at the apex', async () => {
    expect(rulesOf(await post({ owner: '@', type: 'CNAME', cname: 'x.example.net.' }))).toEqual(['cname_at_apex']);
    expect(rulesOf(await post({ owner: '@', type: 'DS', ...goodRdata('DS') }))).toEqual(['never_at_apex']);
  });

  test('one TTL per RRset; a record without TTL joins its set at the set\'s TTL', async () => {
    await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 60, address: '192.0.2.1' });
    expect(rulesOf(await post({ owner: 'www', type: 'A', ttl: 120, address: '192.0.2.2' }))).toEqual(['rrset_ttl']);
    const joined = await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.3' });
    expect(joined.ttl).toBe(60);
    const fresh = await addRecord(alice, zone.id, { owner: 'other', type: 'A', address: '192.0.2.3' });
    expect(fresh.ttl).toBe(zone.ttl);
  });

  test('no duplicate records (absolute and relative owners are the same name)', async () => {
    await addRecord(alice, zone.id, { owner: 'www', type: 'AAAA', address: '2001:db8::1' });
    const res = await post({ owner: `WWW.${zone.zone}`, type: 'AAAA', address: '2001:DB8:0::1' });
    expect(rulesOf(res)).toEqual(['duplicate']);
  });

  test('MX/NS/SRV targets may not be CNAMEs; in-zone NS need an address, which cannot then be deleted', async () => {
    await addRecord(alice, zone.id, { owner: 'alias', type: 'CNAME', cname: 'x.example.net.' });
    expect(rulesOf(await post({ owner: '@', type: 'MX', preference: 10, exchange: `alias.${zone.zone}` }))).toEqual(['target_is_cname']);
    expect(rulesOf(await post({ owner: 'sub', type: 'NS', dname: `ns.sub.${zone.zone}` }))).toEqual(['ns_without_address']);
    const glue = await addRecord(alice, zone.id, { owner: 'ns.sub', type: 'A', address: '192.0.2.53' });
    await addRecord(alice, zone.id, { owner: 'sub', type: 'NS', dname: `ns.sub.${zone.zone}` });
    const res = await alice.delete(`/zone_record/${glue.id}`);
    expect(res.status).toBe(400);
    expect(rulesOf(res)).toEqual(['ns_without_address']);
  });

  test('a change is checked like a new record, and may move a record between RRsets', async () => {
    const a = await addRecord(alice, zone.id, { owner: 'a', type: 'A', ttl: 60, address: '192.0.2.1' });
    await addRecord(alice, zone.id, { owner: 'b', type: 'A', ttl: 120, address: '192.0.2.1' });
    expect(rulesOf(await alice.put(`/zone_record/${a.id}`, { owner: 'b', ttl: 60 }))).toEqual(['duplicate']);
    const moved = expectStatus(await alice.put(`/zone_record/${a.id}`, { owner: 'b', address: '192.0.2.2' }), 200).body.zone_record;
    expect(moved).toMatchObject({ owner: `b.${zone.zone}`, ttl: 120, address: '192.0.2.2' });
    const retyped = expectStatus(await alice.put(`/zone_record/${a.id}`, { type: 'TXT', data: 'now text' }), 200).body.zone_record;
    expect(retyped).toMatchObject({ type: 'TXT', data: 'now text' });
    expect(retyped.address).toBeUndefined();
    expect(rulesOf(await alice.put(`/zone_record/${a.id}`, { type: 'MX' }))).toEqual(['required', 'required']);
  });

  test('concurrent conflicting changes: the zone row lock lets exactly one CNAME-or-A win', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(i % 2 ? { owner: 'race', type: 'CNAME', cname: `t${i}.example.net.` } : { owner: 'race', type: 'A', address: `192.0.2.${i + 1}` })),
    );
    const won = attempts.filter((r) => r.status === 201).map((r) => r.body.zone_record.type);
    expect(attempts.every((r) => r.status === 201 || r.status === 400)).toBe(true);
    // Without the lock a CNAME and an A could both pass their checks. With it: the first CNAME alone, or all four A.
    expect([['CNAME'], ['A', 'A', 'A', 'A']]).toContainEqual(won.sort());
    const stored = (await alice.get(`/zone/${zone.id}/records?search=race`)).body.zone_record;
    expect(stored).toHaveLength(won.length);
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial + won.length);
  });

  test('a TTL given on change is the RRset\'s: the other records of the set follow, each in the history', async () => {
    const first = await addRecord(alice, zone.id, { owner: 'set', type: 'A', ttl: 300, address: '192.0.2.1' });
    const second = await addRecord(alice, zone.id, { owner: 'set', type: 'A', address: '192.0.2.2' });
    const other = await addRecord(alice, zone.id, { owner: 'set', type: 'TXT', ttl: 300, data: 'x' });
    expect(expectStatus(await alice.put(`/zone_record/${first.id}`, { ttl: 900 }), 200).body.zone_record.ttl).toBe(900);
    expect((await alice.get(`/zone_record/${second.id}`)).body.zone_record.ttl).toBe(900);
    expect((await alice.get(`/zone_record/${other.id}`)).body.zone_record.ttl).toBe(300);
    const history = (await alice.get(`/zone_record/${second.id}/history`)).body.history;
    expect(history.map((e: Json) => [e.action, e.before?.ttl, e.after.ttl])).toEqual([['create', undefined, 300], ['update', 300, 900]]);
    // on create, a TTL that differs from the set's is still an error: nothing else changes behind the caller's back
    expect(rulesOf(await post({ owner: 'set', type: 'A', ttl: 60, address: '192.0.2.3' }))).toEqual(['rrset_ttl']);
  });

  test('soft delete and restore; a restore that would break the zone is refused', async () => {
    const a = await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
    expect(expectStatus(await alice.delete(`/zone_record/${a.id}`), 200).body.zone_record.deleted).toBe(true);
    expect((await alice.get(`/zone_record/${a.id}`)).status).toBe(404);
    expect((await alice.delete(`/zone_record/${a.id}`)).status).toBe(404);
    expect(expectStatus(await alice.get(`/zone_record/${a.id}?deleted=true`), 200).body.zone_record.id).toBe(a.id);
    await addRecord(alice, zone.id, { owner: 'www', type: 'CNAME', cname: 'x.example.net.' });
    expect(rulesOf(await alice.put(`/zone_record/${a.id}`, { deleted: false }))).toEqual(['cname_exclusive']);
  });
});

describe('GET /zone/:id/records', () => {
  test('lists live records with search, type filter, sort, pagination; ?deleted=true lists deleted ones', async () => {
    const zone = await newZone(alice);
    for (let i = 0; i < 5; i++) await addRecord(alice, zone.id, { owner: `host${i}`, type: 'A', address: `192.0.2.${i + 1}` });
    const txt = await addRecord(alice, zone.id, { owner: 'host0', type: 'TXT', data: 'findme please' });
    await alice.delete(`/zone_record/${txt.id}`);

    const page = expectStatus(await alice.get(`/zone/${zone.id}/records?sort_by=owner&sort_dir=desc&limit=2&offset=1`), 200).body;
    expect(page.zone_record.map((r: Json) => r.owner)).toEqual([`host3.${zone.zone}`, `host2.${zone.zone}`]);
    expect(page.meta.pagination).toEqual({ total: 5, filtered: 5, limit: 2, offset: 1 });
    expect((await alice.get(`/zone/${zone.id}/records?type=a&limit=2&offset=4`)).body.meta.pagination).toEqual({ total: 5, filtered: 5, limit: 2, offset: 4 });
    expect((await alice.get(`/zone/${zone.id}/records?offset=9`)).body.meta.pagination).toEqual({ total: 5, filtered: 5, limit: 100, offset: 9 });
    expect((await alice.get(`/zone/${zone.id}/records?search=192.0.2.5&offset=1`)).body.meta.pagination).toEqual({ total: 5, filtered: 1, limit: 100, offset: 1 });
    expect((await alice.get(`/zone/${zone.id}/records?search=192.0.2.5`)).body.zone_record.map((r: Json) => r.owner)).toEqual([`host4.${zone.zone}`]);
    expect((await alice.get(`/zone/${zone.id}/records?type=txt`)).body.zone_record).toEqual([]);
    const deleted = (await alice.get(`/zone/${zone.id}/records?deleted=true&search=findme`)).body;
    expect(deleted.zone_record.map((r: Json) => r.id)).toEqual([txt.id]);
    expect((await alice.get(`/zone/${zone.id}/records?sort_by=rdata`)).status).toBe(400);
  });
});
