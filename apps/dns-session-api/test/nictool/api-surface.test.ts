// The NicTool v3 routes scripts call (issue 14): GET /group, GET /user?gid=, GET /zone_record?zid=, GET /zone/<id>/ns, GET /.
import { createUserWithGroup } from '../../src/services/directory/bootstrap';
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { addRecord, expectStatus, newNameserver, newZone } from '../zones/dns-client';

let t: TestServer;
let top: { userId: number; groupId: number };
let child: { userId: number; groupId: number };
let grandchild: { userId: number; groupId: number };
let admin: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'surface.example', username: 'boss', isAdmin: true });
  child = await t.seedSubgroupUser({ parentId: top.groupId, group: 'child.surface.example', username: 'carl' });
  grandchild = await t.seedSubgroupUser({ parentId: child.groupId, group: 'grand.surface.example', username: 'gina' });
  await t.seedUser({ group: 'elsewhere.example', username: 'eve' });
  admin = await t.login('boss@surface.example');
});
afterAll(async () => t?.close());

it('GET / is 401 without a session and a small status object with one', async () => {
  const anonymous = await t.client().get('/');
  expect(anonymous.status).toBe(401);
  expect(anonymous.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' });
  const res = expectStatus(await admin.get('/'), 200);
  expect(res.body).toEqual({
    status: 'ok', user: { id: top.userId, username: 'boss' }, group: { id: top.groupId, name: 'surface.example' },
    meta: { api: { version: expect.any(String) }, msg: 'you are signed in' },
  });
});

it('GET /group: yours, the subgroups of parent_gid, the whole subtree with include_subgroups, by name', async () => {
  const names = (res: { body: { group: Array<{ name: string }> } }) => res.body.group.map((g) => g.name);
  expect(names(expectStatus(await admin.get('/group'), 200))).toEqual(['surface.example']);
  expect(names(expectStatus(await admin.get(`/group?parent_gid=${top.groupId}`), 200))).toEqual(['child.surface.example']);
  expect(names(expectStatus(await admin.get('/group?include_subgroups=true'), 200))).toEqual(['child.surface.example', 'grand.surface.example']);
  expect(names(expectStatus(await admin.get('/group?include_subgroups=true&name=GRAND.surface.example'), 200))).toEqual(['grand.surface.example']);
  const other = await t.seedUser({ group: 'other.example', username: 'oscar' });
  expect((await admin.get(`/group?parent_gid=${other.groupId}`)).status).toBe(403);
  expect((await admin.get('/group?parent_gid=abc')).status).toBe(400);
});

it('GET /user?gid= lists a group\'s users (with include_subgroups, the subtree\'s); GET /user alone is still you', async () => {
  const usernames = (res: { body: { user: Array<{ username: string }> } }) => res.body.user.map((u) => u.username);
  const res = expectStatus(await admin.get(`/user?gid=${child.groupId}`), 200);
  expect(usernames(res)).toEqual(['carl']);
  expect(res.body.meta.msg).toBe('users in group');
  expect(usernames(expectStatus(await admin.get(`/user?gid=${top.groupId}&include_subgroups=true`), 200))).toEqual(['boss', 'carl', 'gina']);
  expect(expectStatus(await admin.get('/user'), 200).body.user.username).toBe('boss');
  const carl = await t.login('carl@child.surface.example');
  expect((await carl.get(`/user?gid=${top.groupId}`)).status).toBe(403);
  expect(grandchild.userId).toBeGreaterThan(0);
});

it('GET /zone_record?zid= pages, searches and sorts like /zone/<id>/records; GET /zone/<id>/ns derives NS', async () => {
  const ns1 = await newNameserver(admin, { name: 'ns1.surface.net.', address: '192.0.2.53' });
  const ns2 = await newNameserver(admin, { name: 'ns2.surface.net.', address: '192.0.2.54' });
  const zone = await newZone(admin, { nameservers: [ns1.id, ns2.id] });
  for (const owner of ['b', 'a', 'c']) await addRecord(admin, zone.id, { owner, type: 'A', address: '192.0.2.1' });
  const page = expectStatus(await admin.get(`/zone_record?zid=${zone.id}&sort_by=owner&sort_dir=desc&limit=2`), 200).body;
  expect(page.zone_record.map((r: { owner: string }) => r.owner.split('.')[0])).toEqual(['c', 'b']);
  expect(page.meta.pagination).toEqual({ total: 3, filtered: 3, limit: 2, offset: 0 });
  expect(expectStatus(await admin.get(`/zone_record?zid=${zone.id}&search=c.${zone.zone}`), 200).body.zone_record).toHaveLength(1);
  expect((await admin.get('/zone_record')).status).toBe(400);
  const ns = expectStatus(await admin.get(`/zone/${zone.id}/ns`), 200).body;
  expect(ns).toEqual({
    ns: [{ owner: zone.zone, ttl: 3600, dname: 'ns1.surface.net.' }, { owner: zone.zone, ttl: 3600, dname: 'ns2.surface.net.' }],
    meta: { api: { version: expect.any(String) }, msg: 'here are the NS records' },
  });
  expect((await admin.get('/zone/999999/ns')).status).toBe(404);
});

it('an admin of a top-level group creates a top-level group with its first admin; nobody else may', async () => {
  const body = {
    name: 'tenant.example',
    admin: { username: 'tina', email: 'tina@tenant.example', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'Tina', last_name: 'Tenant' },
  };
  const res = expectStatus(await admin.post('/group', body), 201);
  expect(res.body.group).toEqual({ id: expect.any(Number), name: 'tenant.example', parent_gid: 0, dnssec_default: false, usable_ns: null, deleted: false });
  expect(res.body.admin).toMatchObject({ username: 'tina', is_admin: true });
  // The new admin manages it; its creator, above no part of it, does not.
  const tina = await t.login('tina@tenant.example', body.admin.password);
  expect((await tina.get(`/group/${res.body.group.id}`)).status).toBe(200);
  expect((await admin.get(`/group/${res.body.group.id}`)).status).toBe(403);
  // A sub-group admin may not; neither half of the request may be missing; the name must be free.
  const subAdmin = await t.seedSubgroupUser({ parentId: top.groupId, group: 'subadmins.surface.example', username: 'sam', isAdmin: true });
  expect(subAdmin.userId).toBeGreaterThan(0);
  const sam = await t.login('sam@subadmins.surface.example');
  expect((await sam.post('/group', { ...body, name: 'other-tenant.example' })).status).toBe(403);
  expect((await admin.post('/group', { ...body, parent_gid: top.groupId })).status).toBe(400);
  expect((await admin.post('/group', body)).status).toBe(409);
  expect(expectStatus(await admin.get('/group?name=other-tenant.example&include_subgroups=true'), 200).body.group).toEqual([]);
});

it('NicTool\'s POST /group {parent_gid: 0, name} makes a top-level group without an admin; create-user gives it one (issue 38.4)', async () => {
  const res = expectStatus(await admin.post('/group', { parent_gid: 0, name: 'nictool-client.example' }), 201);
  expect(res.body).toEqual({
    group: { id: expect.any(Number), name: 'nictool-client.example', parent_gid: 0, dnssec_default: false, usable_ns: null, deleted: false },
    meta: { api: { version: expect.any(String) }, msg: 'I created this group' },
  });
  // Permissions follow the tree: nobody manages it yet, not even its creator (an admin of another top-level group).
  expect((await admin.get(`/group/${res.body.group.id}`)).status).toBe(403);
  expect((await admin.post('/user', { gid: res.body.group.id, username: 'xavier', email: 'xavier@example.com', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'X', last_name: 'Y' })).status).toBe(403);
  // No parent_gid at all means the same; an admin object with a parent is refused; the name must be free.
  expect(expectStatus(await admin.post('/group', { name: 'no-parent.example' }), 201).body.group.parent_gid).toBe(0);
  expect((await admin.post('/group', { parent_gid: 0, name: 'nictool-client.example' })).status).toBe(409);
  // Only an administrator of a top-level group: not a user, not a sub-group's administrator.
  const carl = await t.login('carl@child.surface.example');
  expect((await carl.post('/group', { parent_gid: 0, name: 'by-carl.example' })).status).toBe(403);
  await createUserWithGroup(t.deps, {
    group: 'nictool-client.example', username: 'nina', password: 'Wh@tA-Decent#P6ssw0rd', email: 'nina@example.com', firstName: 'N', lastName: 'A', isAdmin: true,
  });
  const nina = await t.login('nina@nictool-client.example', 'Wh@tA-Decent#P6ssw0rd');
  expect(expectStatus(await nina.get(`/group/${res.body.group.id}`), 200).body.group.name).toBe('nictool-client.example');
});

it('RRSIG, NSEC, NSEC3 and NSEC3PARAM are refused as the signer\'s, by the record routes and in zone files (issue 38.4)', async () => {
  const zone = await newZone(admin);
  for (const type of ['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM']) {
    const res = await admin.post('/zone_record', { zid: zone.id, owner: '@', type });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`Invalid zone record: type (type): ${type} records are made by the DNSSEC signer when a zone is signed (turn on dnssec for the zone), not entered`);
  }
  const zonefile = ['$TTL 300', '@ SOA ns1.example.net. hostmaster 1 2 3 4 5', 'www A 192.0.2.1', 'www NSEC next.example. A RRSIG NSEC'].join('\n');
  const imported = await admin.post('/zone/import', { zone: 'signed-import.example.', zonefile });
  expect(imported.status).toBe(400);
  expect(imported.body.message).toMatch(/line 4: NSEC records are made by the DNSSEC signer when a zone is signed/);
});

it('the OpenAPI document says where the API differs from NicTool on purpose', async () => {
  const doc = expectStatus(await t.client().get('/documentation/openapi.json'), 200).body;
  expect(doc.info.description).toContain('**Coming from NicTool**');
  expect(doc.info.description).toContain('a deleted object is a 404');
});
