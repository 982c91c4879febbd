import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, newNameserver, newZone, rulesOf, uniqueZone } from './dns-client';

let server: TestServer;
let alice: CookieClient;
let groupId: number;

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  ({ groupId } = await server.seedUser({ group: 'ns-acme', username: 'alice' }));
  alice = await server.login('alice@ns-acme');
});
afterAll(() => server?.close());

describe('nameservers', () => {
  test('create, read, list, update; names get a trailing dot and are lowercased', async () => {
    const res = expectStatus(await alice.post('/nameserver', { name: 'NS1.Example.NET', address: '192.0.2.1', address6: '2001:DB8::0:1', export: { type: 'nsd' } }), 201);
    expect(res.body).toEqual({
      nameserver: { id: expect.any(Number), gid: groupId, name: 'ns1.example.net.', address: '192.0.2.1', address6: '2001:db8::1', ttl: 3600, description: '', export: { type: 'nsd' }, deleted: false },
      meta: { api: { version: expect.any(String) }, msg: 'the nameserver was created' },
    });
    const id = res.body.nameserver.id;
    expect(expectStatus(await alice.get(`/nameserver/${id}`), 200).body.nameserver.name).toBe('ns1.example.net.');
    const list = expectStatus(await alice.get('/nameserver'), 200).body.nameserver;
    expect(list.map((n: { id: number }) => n.id)).toContain(id);
    const put = expectStatus(await alice.put(`/nameserver/${id}`, { ttl: 600, description: 'primary' }), 200);
    expect(put.body.nameserver).toMatchObject({ ttl: 600, description: 'primary', name: 'ns1.example.net.' });
  });

  test('a duplicate name is 409', async () => {
    const ns = await newNameserver(alice);
    const res = await alice.post('/nameserver', { name: ns.name, address: '192.0.2.9' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ statusCode: 409, error: 'Conflict', message: 'A nameserver with that name already exists' });
  });

  test.each([
    [{ name: 'ns_1.example.net.' }, 'hostname_ldh'],
    [{ name: 'ns..example.net.' }, 'empty_label'],
    [{ address: '192.0.2.999' }, 'ipv4'],
    [{ address6: 'not-v6' }, 'ipv6'],
    [{ ttl: -5 }, 'ttl'],
  ])('%j → 400 naming the rule %s', async (body, rule) => {
    const res = await alice.post('/nameserver', { name: 'nsx.example.net.', address: '192.0.2.1', ...body });
    expect(res.status).toBe(400);
    expect(rulesOf(res)).toContain(rule);
    expect(res.body.message).toContain(`(${rule})`);
  });

  test('unknown fields and bad export types are 400', async () => {
    expect((await alice.post('/nameserver', { name: 'a.example.net.', colour: 'red' })).status).toBe(400);
    expect((await alice.post('/nameserver', { name: 'a.example.net.', export: { type: 'djb' } })).status).toBe(400);
  });

  test('soft delete, ?deleted=true, restore; a second delete is 404; in use → 409', async () => {
    const ns = await newNameserver(alice);
    expectStatus(await alice.delete(`/nameserver/${ns.id}`), 200);
    expect((await alice.get(`/nameserver/${ns.id}`)).status).toBe(404);
    expect(expectStatus(await alice.get(`/nameserver/${ns.id}?deleted=true`), 200).body.nameserver.deleted).toBe(true);
    expect((await alice.get('/nameserver?deleted=true')).body.nameserver.map((n: { id: number }) => n.id)).toContain(ns.id);
    expect((await alice.delete(`/nameserver/${ns.id}`)).status).toBe(404);
    expect(expectStatus(await alice.put(`/nameserver/${ns.id}`, { deleted: false }), 200).body.nameserver.deleted).toBe(false);

    const used = await newNameserver(alice);
    await newZone(alice, { nameservers: [used.id] });
    const res = await alice.delete(`/nameserver/${used.id}`);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('Cannot delete nameserver: 1 active zone(s) still use it.');
  });

  test('racing DELETE /nameserver and zone assignments: never a deleted nameserver serving a live zone', async () => {
    for (let round = 0; round < 5; round++) {
      const ns = await newNameserver(alice);
      const [del, ...zones] = await Promise.all([
        alice.delete(`/nameserver/${ns.id}`),
        ...Array.from({ length: 3 }, () => alice.post('/zone', { zone: uniqueZone('race'), nameservers: [ns.id] })),
      ]);
      const created = zones.filter((z) => z.status === 201).length;
      if (del.status === 200) expect(zones.map((z) => z.status)).toEqual([404, 404, 404]);
      else expect([del.status, created > 0]).toEqual([409, true]);
    }
  });

  test('changing a nameserver advances the serial of the zones it serves', async () => {
    const ns = await newNameserver(alice);
    const zone = await newZone(alice, { nameservers: [ns.id] });
    expectStatus(await alice.put(`/nameserver/${ns.id}`, { address: '192.0.2.77' }), 200);
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial + 1);
  });

  test('a change that would break a zone it serves is refused, and nothing changes', async () => {
    const ns = await newNameserver(alice, { address: null });
    const zone = await newZone(alice, { nameservers: [ns.id] });
    const res = await alice.put(`/nameserver/${ns.id}`, { name: `ns1.${zone.zone}` });
    expect(res.status).toBe(400);
    expect(rulesOf(res)).toEqual(['ns_without_address']);
    expect((await alice.get(`/nameserver/${ns.id}`)).body.nameserver.name).toBe(ns.name);
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial);
    // with an address the glue is derived, so the same rename is fine
    expectStatus(await alice.put(`/nameserver/${ns.id}`, { name: `ns1.${zone.zone}`, address: '192.0.2.53' }), 200);
    expect((await alice.get(`/zone/${zone.id}/export`)).text).toContain('ns1\t3600\tIN\tA\t192.0.2.53');
  });

  test('another group\'s nameserver is 403; a parent group\'s is readable but not writable', async () => {
    await server.seedUser({ group: 'ns-other', username: 'oscar' });
    const oscar = await server.login('oscar@ns-other');
    const theirs = await newNameserver(oscar);
    expect((await alice.get(`/nameserver/${theirs.id}`)).status).toBe(403);
    expect((await alice.put(`/nameserver/${theirs.id}`, { ttl: 1 })).status).toBe(403);
    expect((await alice.get('/nameserver/999999')).status).toBe(404);

    const ours = await newNameserver(alice);
    await server.seedSubgroupUser({ parentId: groupId, group: 'ns-acme-sub', username: 'sub' });
    const sub = await server.login('sub@ns-acme-sub');
    expect((await sub.get(`/nameserver/${ours.id}`)).status).toBe(200);
    expect((await sub.get('/nameserver')).body.nameserver).toEqual([]);
    expect((await sub.get('/nameserver?usable=true')).body.nameserver.map((n: { id: number }) => n.id)).toContain(ours.id);
    expect((await sub.put(`/nameserver/${ours.id}`, { ttl: 1 })).status).toBe(403);
    // and a zone of the subgroup may use it
    expect((await sub.post('/zone', { zone: 'sub-uses-parent-ns.example.', nameservers: [ours.id] })).status).toBe(201);
  });

  test('every change is in the audit history, with who, before and after', async () => {
    const ns = await newNameserver(alice);
    await alice.put(`/nameserver/${ns.id}`, { ttl: 120 });
    await alice.delete(`/nameserver/${ns.id}`);
    const history = expectStatus(await alice.get(`/nameserver/${ns.id}/history`), 200).body;
    const me = (await alice.get('/session')).body.user.id;
    expect(history.history.map((e: { action: string }) => e.action)).toEqual(['create', 'update', 'delete']);
    expect(history.history[1]).toMatchObject({ object: 'nameserver', object_id: ns.id, before: { ttl: 3600 }, after: { ttl: 120 } });
    expect(history.history.every((e: { user: { id: number } }) => e.user.id === me)).toBe(true);
    expect(history.meta.pagination).toEqual({ total: 3, filtered: 3, limit: 100, offset: 0 });
    expect((await alice.get('/nameserver/999999/history')).status).toBe(404);
  });
});
