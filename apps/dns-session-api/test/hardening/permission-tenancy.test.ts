// The permission editor's API and group moves across tenants and subtrees, through HTTP against a real database:
// nobody reads, changes or deletes a permission object outside their subtree, nor moves a group into or out of
// another tenant's tree; a sub-group's administrator gets what GET /group/<id>/access says and nothing above; another
// tenant's administrator gets GET's answer from every write the access answer describes.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, type Json } from '../zones/dns-client';

let t: TestServer;
let boss: CookieClient; // admin of the top group, no permission object
let subAdmin: CookieClient; // admin of sub.mid (below mid), no permission object
let rival: CookieClient; // admin of another tenant
let top: { userId: number; groupId: number };
let mid: { userId: number; groupId: number };
let sub: { userId: number; groupId: number };
let rivalTop: { userId: number; groupId: number };
let midObject: number;
let noraId: number;
let n = 0;

const ok = (res: { status: number }) => res.status >= 200 && res.status < 300;

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'pt.example', username: 'boss', isAdmin: true });
  mid = await t.seedSubgroupUser({ parentId: top.groupId, group: 'mid.pt.example', username: 'sam', isAdmin: true });
  sub = await t.seedSubgroupUser({ parentId: mid.groupId, group: 'sub.mid.pt.example', username: 'suzy', isAdmin: true });
  rivalTop = await t.seedUser({ group: 'rival.example', username: 'rival', isAdmin: true });
  boss = await t.login('boss@pt.example');
  subAdmin = await t.login('suzy@sub.mid.pt.example');
  rival = await t.login('rival@rival.example');
  noraId = expectStatus(await boss.post('/user', {
    gid: mid.groupId, username: 'nora', email: 'nora@example.com', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'Nora', last_name: 'User',
  }), 201).body.user.id;
  midObject = expectStatus(await boss.post('/permission', {
    name: 'mid', group: { id: mid.groupId, create: true, write: true }, zone: { create: true, write: true },
  }), 201).body.permission.id;
}, 120_000);
afterAll(async () => t?.close());

describe('permission objects of another subtree', () => {
  it('another tenant gets GET\'s answer from read, change, delete and create', async () => {
    const get = (await rival.get(`/permission/${midObject}`)).status;
    expect(get).toBe(403);
    expect((await rival.put(`/permission/${midObject}`, { group: { delete: true } })).status).toBe(get);
    expect((await rival.delete(`/permission/${midObject}`)).status).toBe(get);
    expect((await rival.get(`/permission?gid=${mid.groupId}`)).status).toBe(403);
    expect((await rival.get(`/user/${noraId}`)).status).toBe(403);
    expect((await rival.post('/permission', { name: 'x', user: { id: noraId } })).status).toBe(403);
    expect((await rival.post('/permission', { name: 'x', group: { id: mid.groupId } })).status).toBe(403);
    const after = expectStatus(await boss.get(`/permission/${midObject}`), 200).body.permission;
    expect(after.deleted).toBeFalsy();
    expect(after.group.delete).toBe(false);
  });

  it('a sub-group\'s administrator cannot touch the objects of the groups above, nor those groups\' users', async () => {
    expect((await subAdmin.get(`/permission/${midObject}`)).status).toBe(403);
    expect((await subAdmin.put(`/permission/${midObject}`, { zone: { delete: true } })).status).toBe(403);
    expect((await subAdmin.delete(`/permission/${midObject}`)).status).toBe(403);
    expect((await subAdmin.post('/permission', { name: 'x', user: { id: mid.userId } })).status).toBe(403);
    expect((await subAdmin.post('/permission', { name: 'x', user: { id: sub.userId } })).status).toBe(403); // himself
    expect((await subAdmin.post('/permission', { name: 'x', group: { id: sub.groupId } })).status).toBe(403); // his own group
    expect((await subAdmin.put(`/user/${mid.userId}`, { inherit_group_permissions: false })).status).toBe(403);
    expect((await subAdmin.put(`/user/${noraId}`, { is_admin: true })).status).toBe(403);
  });
});

describe('group moves', () => {
  it('never into or out of another tenant\'s tree, nor from outside one\'s subtree', async () => {
    const mine = expectStatus(await boss.post('/group', { name: 'm1.pt.example', parent_gid: top.groupId }), 201).body.group.id as number;
    const theirs = expectStatus(await rival.post('/group', { name: 'r1.rival.example', parent_gid: rivalTop.groupId }), 201).body.group.id as number;
    expect((await boss.put(`/group/${mine}`, { parent_gid: theirs })).status).toBe(403);
    expect((await rival.put(`/group/${theirs}`, { parent_gid: mine })).status).toBe(403);
    expect((await rival.put(`/group/${mine}`, { parent_gid: theirs })).status).toBe(403);
    // suzy administers sub only: a group beside it cannot be pulled in, nor hers pushed out
    expect((await subAdmin.put(`/group/${mine}`, { parent_gid: sub.groupId })).status).toBe(403);
    const hers = expectStatus(await subAdmin.post('/group', { name: 's1.sub.mid.pt.example', parent_gid: sub.groupId }), 201).body.group.id as number;
    expect((await subAdmin.put(`/group/${hers}`, { parent_gid: mid.groupId })).status).toBe(403);
    // a user neither: out to another tenant, nor (for suzy) in from above
    expect((await boss.put(`/user/${noraId}`, { gid: rivalTop.groupId })).status).toBe(403);
    expect((await subAdmin.put(`/user/${noraId}`, { gid: sub.groupId })).status).toBe(403);
    expect(expectStatus(await boss.get(`/user/${noraId}`), 200).body.group.id).toBe(mid.groupId);
    expect(expectStatus(await boss.get(`/group/${mine}`), 200).body.group.parent_gid).toBe(top.groupId);
    expect(expectStatus(await rival.get(`/group/${theirs}`), 200).body.group.parent_gid).toBe(rivalTop.groupId);
    expect(expectStatus(await subAdmin.get(`/group/${hers}`), 200).body.group.parent_gid).toBe(sub.groupId);
  });
});

describe('GET /group/<id>/access agrees with the writes', () => {
  async function predictions(client: CookieClient, parent: number, suffix: string): Promise<Array<[string, boolean | undefined, boolean]>> {
    const g = expectStatus(await boss.post('/group', { name: `a${++n}.${suffix}`, parent_gid: parent }), 201).body.group.id as number;
    const res = await client.get(`/group/${g}/access`);
    const a: Json | undefined = res.status === 200 ? res.body.access : undefined;
    const out: Array<[string, boolean | undefined, boolean]> = [
      ['rename', a?.group.rename, ok(await client.put(`/group/${g}`, { name: `b${n}.${suffix}` }))],
      ['dnssec_default', a?.group.dnssec_default, ok(await client.put(`/group/${g}`, { dnssec_default: true }))],
      ['user_create', a?.allowed.user.create, ok(await client.post('/user', {
        gid: g, username: `user${n}`, email: `u${n}@example.com`, password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'U', last_name: 'U',
      }))],
      ['group_create', a?.allowed.group.create, ok(await client.post('/group', { name: `c${n}.${suffix}`, parent_gid: g }))],
      ['permissions', a?.group.permissions, ok(await client.post('/permission', { name: 'p', group: { id: g } }))],
    ];
    // on an empty group: one holding users or groups is refused whatever the caller may do
    const empty = expectStatus(await boss.post('/group', { name: `e${n}.${suffix}`, parent_gid: parent }), 201).body.group.id as number;
    const b = await client.get(`/group/${empty}/access`);
    out.push(['delete', b.status === 200 ? b.body.access.group.delete : undefined, ok(await client.delete(`/group/${empty}`))]);
    return out;
  }

  it('for a sub-group\'s administrator, in a group below hers', async () => {
    for (const [what, predicted, actual] of await predictions(subAdmin, sub.groupId, 'sub.mid.pt.example')) {
      expect(`${what}: ${actual}`).toBe(`${what}: ${predicted}`);
    }
  }, 60_000);

  it('for an administrator limited by his group\'s object (not his own), in a group below his', async () => {
    const sam = await t.login('sam@mid.pt.example');
    expect(expectStatus(await sam.get(`/group/${mid.groupId}/access`), 200).body.access.applies.source).toBe('group');
    for (const [what, predicted, actual] of await predictions(sam, mid.groupId, 'mid.pt.example')) {
      expect(`${what}: ${actual}`).toBe(`${what}: ${predicted}`);
    }
  }, 60_000);

  it('for another tenant\'s administrator: GET\'s refusal, and every write refused', async () => {
    for (const [what, predicted, actual] of await predictions(rival, mid.groupId, 'mid.pt.example')) {
      expect(`${what}: ${actual} ${predicted}`).toBe(`${what}: false undefined`);
    }
  }, 60_000);
});

describe('odd input to the permission and group editors', () => {
  it('is a clear 4xx, never a 500', async () => {
    const huge = 2 ** 31;
    const bodies: Array<[string, string, unknown]> = [
      ['POST', '/permission', { name: 'x', user: { id: huge } }],
      ['POST', '/permission', { name: 'x', group: { id: -1 } }],
      ['POST', '/permission', { name: 'x', group: { id: mid.groupId }, nameserver: { usable: [huge, -1, 0] } }],
      ['POST', '/permission', { name: 'x', user: { id: noraId }, nameserver: { usable: [huge] } }],
      ['POST', '/permission', { name: 'x'.repeat(100_000), user: { id: noraId } }],
      ['POST', '/permission', { name: '\u0000', user: { id: noraId } }],
      ['POST', '/permission', { user: { id: noraId }, group: { id: top.groupId } }],
      ['PUT', `/permission/${midObject}`, { group: { id: huge } }],
      ['PUT', `/permission/${midObject}`, { nameserver: { usable: Array.from({ length: 5000 }, (_, i) => i + 1) } }],
      ['PUT', `/permission/${midObject}`, { name: null, inherit: null }],
      ['PUT', `/permission/${huge}`, {}],
      ['PUT', `/group/${mid.groupId}`, { parent_gid: huge }],
      ['PUT', `/group/${mid.groupId}`, { parent_gid: -1 }],
      ['PUT', `/group/${mid.groupId}`, { usable_ns: [huge] }],
      ['PUT', `/group/${mid.groupId}`, { name: '\u0000.pt.example' }],
      ['PUT', `/user/${noraId}`, { gid: huge }],
      ['PUT', `/user/${noraId}`, { inherit_group_permissions: 'yes' }],
      ['POST', '/group', { name: 'q.pt.example', parent_gid: huge }],
    ];
    for (const [method, path, body] of bodies) {
      const res = await boss.request(method, path, { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(`${method} ${path} ${JSON.stringify(body).slice(0, 80)} -> ${res.status < 500}`).toBe(`${method} ${path} ${JSON.stringify(body).slice(0, 80)} -> true`);
    }
    for (const q of ['gid=abc', `gid=${huge}`, 'gid=-1', 'include_subgroups=maybe', 'deleted=1&deleted=2', 'gid[]=1']) {
      const res = await boss.get(`/permission?${q}`);
      expect(`${q} -> ${res.status < 500}`).toBe(`${q} -> true`);
    }
  }, 60_000);
});

describe('publish now across tenants and subtrees', () => {
  it('answers as GET does for another tenant\'s nameserver and zone, and refuses a nameserver of a group above', async () => {
    const ns = expectStatus(await boss.post('/nameserver', { name: 'ns1.pt.example.', address: '192.0.2.61', export: { type: 'bind' } }), 201).body.nameserver;
    const zone = expectStatus(await boss.post('/zone', { gid: sub.groupId, zone: 'z.sub.pt.example.', nameservers: [ns.id] }), 201).body.zone;
    expect((await rival.get(`/nameserver/${ns.id}`)).status).toBe(403);
    expect((await rival.post(`/nameserver/${ns.id}/publish`, {})).status).toBe(403);
    expect((await rival.get(`/zone/${zone.id}`)).status).toBe(403);
    expect((await rival.post(`/zone/${zone.id}/publish`, {})).status).toBe(403);
    // suzy's zones may use the top group's nameserver, which she may read but not change: so no publishing it whole
    expect((await subAdmin.get(`/nameserver/${ns.id}`)).status).toBe(200);
    expect((await subAdmin.put(`/nameserver/${ns.id}`, { address: '192.0.2.62' })).status).toBe(403);
    expect((await subAdmin.post(`/nameserver/${ns.id}/publish`, {})).status).toBe(403);
  }, 60_000);
});
