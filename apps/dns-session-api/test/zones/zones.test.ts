import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { addRecord, expectStatus, newNameserver, newZone, rulesOf, uniqueZone } from './dns-client';

let server: TestServer;
let alice: CookieClient;
let groupId: number;

/** Today's first serial for the test clock. */
const todaySerial = () => {
  const d = server.clock.now();
  return (d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate()) * 100;
};

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  ({ groupId } = await server.seedUser({ group: 'zone-acme', username: 'alice' }));
  alice = await server.login('alice@zone-acme');
});
afterAll(() => server?.close());

describe('zones', () => {
  test('create with RFC 1912 defaults and a YYYYMMDDnn serial; duplicate → 409', async () => {
    const ns = await newNameserver(alice);
    const name = uniqueZone();
    const res = expectStatus(await alice.post('/zone', { zone: name.replace(/\.$/, '').toUpperCase(), nameservers: [ns.id] }), 201);
    expect(res.body).toEqual({
      zone: {
        id: expect.any(Number), gid: groupId, zone: name, description: '', mailaddr: `hostmaster.${name}`, serial: todaySerial(),
        refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600, nameservers: [ns.id], dnssec: false, nsec3: false,
        last_modified: expect.any(String), deleted: false,
      },
      meta: { api: { version: expect.any(String) }, msg: 'the zone was created' },
    });
    const dup = await alice.post('/zone', { zone: name });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ statusCode: 409, error: 'Conflict', message: 'A zone with that name already exists' });
  });

  test('mailaddr as a mailbox becomes the SOA RNAME', async () => {
    const zone = await newZone(alice, { mailaddr: 'dns.admin@example.org' });
    expect(zone.mailaddr).toBe('dns\\.admin.example.org.');
  });

  test.each([
    [{ zone: 'bad_zone!.example.' }, 'zone', 'hostname'],
    [{ refresh: -1 }, 'refresh', 'soa_timer'],
    [{ ttl: 2147483648 }, 'ttl', 'ttl'],
    [{ mailaddr: 'a..b' }, 'mailaddr', 'empty_label'],
    [{ mailaddr: 'nul\u0000@example.com' }, 'mailaddr', 'control_character'],
  ])('%j → 400 naming %s/%s', async (body, field, rule) => {
    const res = await alice.post('/zone', { zone: uniqueZone(), ...body });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field, rule }));
  });

  test('nameservers: unknown → 404, listed twice → 400, in-zone without address → 400', async () => {
    expect((await alice.post('/zone', { zone: uniqueZone(), nameservers: [999999] })).status).toBe(404);
    const ns = await newNameserver(alice);
    expect(rulesOf(await alice.post('/zone', { zone: uniqueZone(), nameservers: [ns.id, ns.id] }))).toEqual(['duplicate']);
    const name = uniqueZone();
    const inZone = await newNameserver(alice, { name: `ns1.${name}`, address: null });
    const res = await alice.post('/zone', { zone: name, nameservers: [inZone.id] });
    expect(res.status).toBe(400);
    expect(rulesOf(res)).toEqual(['ns_without_address']);
    expect((await alice.get(`/zone?search=${name.slice(0, -1)}`)).body.zone).toEqual([]);
  });

  test('the serial advances on every change, and to a new day', async () => {
    const zone = await newZone(alice);
    const put = expectStatus(await alice.put(`/zone/${zone.id}`, { refresh: 43200, description: 'changed' }), 200);
    expect(put.body.zone).toMatchObject({ refresh: 43200, description: 'changed', serial: zone.serial + 1 });
    const record = await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial + 2);
    await alice.put(`/zone_record/${record.id}`, { address: '192.0.2.2' });
    await alice.delete(`/zone_record/${record.id}`);
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial + 4);
    server.clock.advance(86400);
    alice = await server.login('alice@zone-acme'); // the old session expired with the day
    await alice.put(`/zone/${zone.id}`, { retry: 3600 });
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(todaySerial());
  });

  test('PUT rejects fields a zone cannot change and an empty body', async () => {
    const zone = await newZone(alice);
    expect((await alice.put(`/zone/${zone.id}`, { zone: 'renamed.example.' })).status).toBe(400);
    expect((await alice.put(`/zone/${zone.id}`, { serial: 5 })).status).toBe(400);
    expect((await alice.put(`/zone/${zone.id}`, {})).status).toBe(400);
    expect((await alice.put('/zone/999999', { ttl: 60 })).status).toBe(404);
    expect((await alice.get('/zone/abc')).status).toBe(400);
  });

  test('soft delete hides the zone; ?deleted=true finds it; PUT deleted:false restores it; a name taken meanwhile → 409', async () => {
    const zone = await newZone(alice);
    expect(expectStatus(await alice.delete(`/zone/${zone.id}`), 200).body.zone.deleted).toBe(true);
    expect((await alice.get(`/zone/${zone.id}`)).status).toBe(404);
    expect((await alice.delete(`/zone/${zone.id}`)).status).toBe(404);
    expect(expectStatus(await alice.get(`/zone/${zone.id}?deleted=true`), 200).body.zone.id).toBe(zone.id);
    expect((await alice.get('/zone?deleted=true&limit=1000')).body.zone.map((z: { id: number }) => z.id)).toContain(zone.id);
    expect(expectStatus(await alice.put(`/zone/${zone.id}`, { deleted: false }), 200).body.zone.deleted).toBe(false);

    await alice.delete(`/zone/${zone.id}`);
    await newZone(alice, { zone: zone.zone });
    expect((await alice.put(`/zone/${zone.id}`, { deleted: false })).status).toBe(409);
  });

  test('list: search, limit/offset, allow-listed sort, pagination counts, include_subgroups', async () => {
    const { groupId: parent } = await server.seedUser({ group: 'list-acme', username: 'lister' });
    const lister = await server.login('lister@list-acme');
    const names = ['b-list.example.', 'a-list.example.', 'c-list.example.', 'other-thing.example.'];
    for (const zone of names) await newZone(lister, { zone, description: zone.startsWith('other') ? 'has list in text' : '' });
    const { groupId: child } = await server.seedSubgroupUser({ parentId: parent, group: 'list-acme-sub', username: 'child' });
    const childClient = await server.login('child@list-acme-sub');
    await newZone(childClient, { zone: 'd-list.example.' });

    const page = expectStatus(await lister.get('/zone?search=list&limit=2&offset=1&sort_by=zone&sort_dir=asc'), 200);
    expect(page.body.zone.map((z: { zone: string }) => z.zone)).toEqual(['b-list.example.', 'c-list.example.']);
    expect(page.body.meta).toEqual({ api: { version: expect.any(String) }, msg: "here's your zone(s)", pagination: { total: 4, filtered: 4, limit: 2, offset: 1 } });

    const desc = (await lister.get('/zone?search=-list&sort_by=zone&sort_dir=desc')).body;
    expect(desc.zone.map((z: { zone: string }) => z.zone)).toEqual(['c-list.example.', 'b-list.example.', 'a-list.example.']);
    expect(desc.meta.pagination).toMatchObject({ total: 4, filtered: 3, limit: 100, offset: 0 });
    // A page past the end still counts (the counts otherwise ride on the page's rows)
    const beyond = (await lister.get('/zone?offset=10')).body;
    expect([beyond.zone, beyond.meta.pagination]).toEqual([[], { total: 4, filtered: 4, limit: 100, offset: 10 }]);
    const beyondSearch = (await lister.get('/zone?search=-list&offset=3')).body;
    expect([beyondSearch.zone, beyondSearch.meta.pagination]).toEqual([[], { total: 4, filtered: 3, limit: 100, offset: 3 }]);

    const all = (await lister.get('/zone?include_subgroups=true&sort_by=id')).body;
    expect(all.zone.map((z: { zone: string }) => z.zone)).toEqual([...names, 'd-list.example.']);
    expect((await lister.get(`/zone?gid=${child}`)).body.zone.map((z: { zone: string }) => z.zone)).toEqual(['d-list.example.']);
    expect((await childClient.get(`/zone?gid=${parent}`)).status).toBe(403);

    expect((await lister.get('/zone?sort_by=password')).status).toBe(400);
    expect((await lister.get('/zone?limit=0')).status).toBe(400);
    expect((await lister.get('/zone?limit=5000')).status).toBe(400);
    expect((await lister.get('/zone?sort_dir=sideways')).status).toBe(400);
    // LIKE wildcards in search are literal; NUL is refused, not a database error
    expect((await lister.get('/zone?search=%25')).body.zone).toEqual([]);
    expect((await lister.get('/zone?search=a%00b')).status).toBe(400);
    expect((await lister.post('/zone', { zone: 'nul.example.', description: 'a\u0000b' })).status).toBe(400);
  });

  test('another group\'s zone: 403 on read, change, delete, records, export and history', async () => {
    await server.seedUser({ group: 'zone-other', username: 'oscar' });
    const oscar = await server.login('oscar@zone-other');
    const zone = await newZone(oscar);
    for (const res of [
      await alice.get(`/zone/${zone.id}`),
      await alice.put(`/zone/${zone.id}`, { ttl: 60 }),
      await alice.delete(`/zone/${zone.id}`),
      await alice.get(`/zone/${zone.id}/records`),
      await alice.get(`/zone/${zone.id}/export`),
      await alice.get(`/zone/${zone.id}/history`),
      await alice.post('/zone_record', { zid: zone.id, owner: 'www', type: 'A', address: '192.0.2.1' }),
      await alice.post('/zone', { zone: uniqueZone(), gid: (await oscar.get('/session')).body.group.id }),
    ]) {
      expect(res.status).toBe(403);
    }
  });

  test('a zone cannot be created in an unknown or deleted group (404)', async () => {
    expect((await alice.post('/zone', { zone: uniqueZone(), gid: 999999 })).status).toBe(404);
    const { groupId: g } = await server.seedUser({ group: 'gone-admins', username: 'gadmin', isAdmin: true });
    const admin = await server.login('gadmin@gone-admins');
    const sub = expectStatus(await admin.post('/group', { name: 'soon-gone', parent_gid: g }), 201).body.group.id;
    expectStatus(await admin.delete(`/group/${sub}`), 200);
    expect((await admin.post('/zone', { zone: uniqueZone(), gid: sub })).status).toBe(404);
    expect((await admin.post('/nameserver', { name: 'ns.gone.example.', gid: sub })).status).toBe(404);
  });

  test('without a cookie every zone route is 401', async () => {
    const anon = server.client();
    expect((await anon.get('/zone')).status).toBe(401);
    expect((await anon.post('/zone/import', { zone: 'x.example.', zonefile: 'x' })).status).toBe(401);
  });

  test('history: create, update, delete, restore of the zone and of its records, with who and before/after', async () => {
    const zone = await newZone(alice);
    await alice.put(`/zone/${zone.id}`, { ttl: 600 });
    const record = await addRecord(alice, zone.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
    await alice.put(`/zone_record/${record.id}`, { address: '192.0.2.2' });
    await alice.delete(`/zone_record/${record.id}`);
    await alice.put(`/zone_record/${record.id}`, { deleted: false });
    await alice.delete(`/zone/${zone.id}`);
    await alice.put(`/zone/${zone.id}`, { deleted: false });

    const history = expectStatus(await alice.get(`/zone/${zone.id}/history`), 200).body;
    const me = (await alice.get('/session')).body.user.id;
    expect(history.history.map((e: { object: string; action: string }) => `${e.object}:${e.action}`)).toEqual([
      'zone:create', 'zone:update', 'zone_record:create', 'zone_record:update', 'zone_record:delete', 'zone_record:restore', 'zone:delete', 'zone:restore',
    ]);
    expect(history.history.every((e: { user: { id: number } }) => e.user.id === me)).toBe(true);
    expect(history.history[1]).toMatchObject({ before: { ttl: 3600 }, after: { ttl: 600 }, at: expect.any(String) });
    expect(history.meta.pagination.total).toBe(8);

    const recordHistory = expectStatus(await alice.get(`/zone_record/${record.id}/history`), 200).body.history;
    expect(recordHistory.map((e: { action: string }) => e.action)).toEqual(['create', 'update', 'delete', 'restore']);
    expect(recordHistory[1]).toMatchObject({ object_id: record.id, before: { address: '192.0.2.1' }, after: { address: '192.0.2.2' } });
  });

  test('user and group changes are recorded through the same audit hook', async () => {
    const { groupId: g } = await server.seedUser({ group: 'audit-admins', username: 'root', isAdmin: true });
    const admin = await server.login('root@audit-admins');
    const res = expectStatus(await admin.post('/group', { name: 'audited-sub', parent_gid: g }), 201);
    const rows = await server.database.db.selectFrom('dns.audit_log').select(['object_type', 'action', 'after'])
      .where('object_type', '=', 'group').where('object_id', '=', res.body.group.id).execute();
    expect(rows).toEqual([{ object_type: 'group', action: 'create', after: expect.objectContaining({ name: 'audited-sub' }) }]);
  });
});
