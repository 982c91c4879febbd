// Moving a group and its settings (PUT /group/<id>), and what the caller may do in a group (GET /group/<id>/access),
// through HTTP against a real database (issue 42's Groups screen): a group moves only within the groups its mover
// manages, never below itself, never above the mover's own group; every refusal is a clear 4xx.
import { envelopeSchema } from '../src/http/envelope';
import { groupAccessSchema } from '../src/serialize';
import { startTestServer, type TestServer } from './helpers/server';
import type { CookieClient } from './helpers/client';
import { expectStatus, type Json } from './zones/dns-client';

let t: TestServer;
let boss: CookieClient; // admin of the top group
let sam: CookieClient; // admin of the subgroup "mid"
let nora: CookieClient; // a user of "mid", not an administrator
let rival: CookieClient; // admin of another tenant
let top: { userId: number; groupId: number };
let mid: { userId: number; groupId: number };
let other: { userId: number; groupId: number };
let noraId: number;

const newGroup = async (client: CookieClient, name: string, parent: number): Promise<number> =>
  expectStatus(await client.post('/group', { name, parent_gid: parent }), 201).body.group.id as number;

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'move.example', username: 'boss', isAdmin: true });
  mid = await t.seedSubgroupUser({ parentId: top.groupId, group: 'mid.move.example', username: 'sam', isAdmin: true });
  other = await t.seedUser({ group: 'other.example', username: 'rival', isAdmin: true });
  boss = await t.login('boss@move.example');
  sam = await t.login('sam@mid.move.example');
  rival = await t.login('rival@other.example');
  noraId = expectStatus(await sam.post('/user', {
    gid: mid.groupId, username: 'nora', email: 'nora@example.com', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'Nora', last_name: 'User',
  }), 201).body.user.id;
  nora = await t.login('nora@mid.move.example');
});
afterAll(async () => t?.close());

const refusal = (res: { status: number; body: Json }, status: number, message: RegExp) => {
  expect(res.status).toBe(status);
  expect(String(res.body.meta?.msg ?? res.body.message ?? JSON.stringify(res.body))).toMatch(message);
};

describe('moving a group', () => {
  it('moves a group below another group the mover manages, and back', async () => {
    const a = await newGroup(boss, 'a.move.example', top.groupId);
    const moved = expectStatus(await boss.put(`/group/${a}`, { parent_gid: mid.groupId }), 200);
    expect(moved.body.group).toMatchObject({ id: a, parent_gid: mid.groupId });
    expect(expectStatus(await boss.get(`/group/${mid.groupId}/subgroups`), 200).body.group.map((g: Json) => g.id)).toEqual([a]);
    // sam manages "mid", so the moved group is now within his reach
    expectStatus(await sam.get(`/group/${a}`), 200);
    expect(expectStatus(await boss.put(`/group/${a}`, { parent_gid: top.groupId }), 200).body.group.parent_gid).toBe(top.groupId);
    expect((await sam.get(`/group/${a}`)).status).toBe(403);
  });

  it('refuses a new parent outside the mover\'s groups (another tenant)', async () => {
    const b = await newGroup(boss, 'b.move.example', top.groupId);
    refusal(await boss.put(`/group/${b}`, { parent_gid: other.groupId }), 403, /outside yours/);
    // nor may the other tenant's admin pull it over
    refusal(await rival.put(`/group/${b}`, { parent_gid: other.groupId }), 403, /outside yours/);
    expect(expectStatus(await boss.get(`/group/${b}`), 200).body.group.parent_gid).toBe(top.groupId);
  });

  it('refuses to move a group below itself or below one of its descendants', async () => {
    const c = await newGroup(boss, 'c.move.example', top.groupId);
    const child = await newGroup(boss, 'child.c.move.example', c);
    const grandchild = await newGroup(boss, 'grandchild.c.move.example', child);
    refusal(await boss.put(`/group/${c}`, { parent_gid: c }), 400, /below itself/);
    refusal(await boss.put(`/group/${c}`, { parent_gid: grandchild }), 400, /below itself/);
    expect(expectStatus(await boss.get(`/group/${c}`), 200).body.group.parent_gid).toBe(top.groupId);
  });

  it('refuses to move a group above the mover\'s own group, or the mover\'s own group at all', async () => {
    const d = await newGroup(sam, 'd.mid.move.example', mid.groupId);
    refusal(await sam.put(`/group/${d}`, { parent_gid: top.groupId }), 403, /outside yours/);
    refusal(await sam.put(`/group/${mid.groupId}`, { parent_gid: d }), 400, /your own group/);
    refusal(await boss.put(`/group/${top.groupId}`, { parent_gid: mid.groupId }), 400, /your own group/);
    refusal(await sam.put(`/group/${d}`, { parent_gid: 0 }), 400, /parent_gid/);
    expect(expectStatus(await boss.get(`/group/${d}`), 200).body.group.parent_gid).toBe(mid.groupId);
  });

  it('refuses a user who is not an administrator, and an administrator whose permissions lack group write', async () => {
    const e = await newGroup(sam, 'e.mid.move.example', mid.groupId);
    refusal(await nora.put(`/group/${e}`, { parent_gid: mid.groupId, name: 'x.move.example' }), 403, /administrators/);
    const permission = expectStatus(await boss.post('/permission', {
      group: { id: mid.groupId, create: true, write: false, delete: true }, user: { create: true, write: true, delete: true },
      zone: { create: true, write: true, delete: true }, zonerecord: { create: true, write: true, delete: true },
    }), 201).body.permission;
    try {
      refusal(await sam.put(`/group/${e}`, { name: 'renamed-e.mid.move.example' }), 403, /change groups/);
    } finally {
      expectStatus(await boss.delete(`/permission/${permission.id}`), 200);
    }
    expect(expectStatus(await sam.put(`/group/${e}`, { name: 'renamed-e.mid.move.example' }), 200).body.group.name).toBe('renamed-e.mid.move.example');
  });
});

describe('a group\'s settings', () => {
  it('dnssec_default is set by the group\'s administrators; usable_ns and the name only from above', async () => {
    const ns = expectStatus(await boss.post('/nameserver', { name: 'ns1.move.net.', address: '192.0.2.10', export: { type: 'bind' } }), 201).body.nameserver;
    expect(expectStatus(await sam.put(`/group/${mid.groupId}`, { dnssec_default: true }), 200).body.group.dnssec_default).toBe(true);
    refusal(await sam.put(`/group/${mid.groupId}`, { usable_ns: [ns.id] }), 403, /usable_ns/);
    refusal(await sam.put(`/group/${mid.groupId}`, { name: 'renamed-mid.move.example' }), 403, /rename/);
    const set = expectStatus(await boss.put(`/group/${mid.groupId}`, { usable_ns: [ns.id], dnssec_default: false }), 200).body.group;
    expect(set).toMatchObject({ usable_ns: [ns.id], dnssec_default: false });
    refusal(await boss.put(`/group/${mid.groupId}`, { usable_ns: [999999] }), 400, /usable_ns/);
    expect(expectStatus(await boss.put(`/group/${mid.groupId}`, { usable_ns: null }), 200).body.group.usable_ns).toBeNull();
  });
});

describe('GET /group/<id>/access', () => {
  const all = { create: true, write: true, delete: true };
  const grid = (over: Json = {}) => ({
    group: all, user: all, nameserver: all, zone: { ...all, delegate: true }, zonerecord: { ...all, delegate: true }, self_write: true, ...over,
  });

  it('an administrator without a permission object may do everything below their group, less in it', async () => {
    const below = expectStatus(await boss.get(`/group/${mid.groupId}/access`), 200).body;
    expect(below).toEqual({
      access: {
        group: { id: mid.groupId, rename: true, move: true, dnssec_default: true, usable_ns: true, permissions: true, delete: true },
        is_admin: true,
        applies: { source: 'none', id: null, name: null },
        grantable: grid(),
        allowed: grid(),
      },
      meta: expect.objectContaining({ msg: 'here is what you may do' }),
    });
    expect(envelopeSchema('access', groupAccessSchema).safeParse(below).success).toBe(true); // as the OpenAPI document says
    const own = expectStatus(await boss.get(`/group/${top.groupId}/access`), 200).body.access;
    expect(own.group).toEqual({ id: top.groupId, rename: false, move: false, dnssec_default: true, usable_ns: false, permissions: false, delete: false });
  });

  it('a user who is not an administrator may change zones but not users or groups', async () => {
    const access = expectStatus(await nora.get(`/group/${mid.groupId}/access`), 200).body.access;
    const none = { create: false, write: false, delete: false };
    expect(access.is_admin).toBe(false);
    expect(access.allowed).toEqual(grid({ group: none, user: none, zone: { ...all, delegate: false } }));
    expect(access.grantable).toEqual(grid());
    expect(access.group).toEqual({ id: mid.groupId, rename: false, move: false, dnssec_default: false, usable_ns: false, permissions: false, delete: false });
  });

  it('follows the permission object that applies: the group\'s, then the user\'s own when it does not inherit', async () => {
    const groupObject = expectStatus(await boss.post('/permission', {
      name: 'mid rights', group: { id: mid.groupId, create: true, write: false, delete: false }, user: all,
      zone: { create: true, write: true, delete: false }, zonerecord: all, nameserver: all, self_write: true,
    }), 201).body.permission;
    try {
      const sams = expectStatus(await sam.get(`/group/${mid.groupId}/access`), 200).body.access;
      expect(sams.applies).toEqual({ source: 'group', id: groupObject.id, name: 'mid rights' });
      expect(sams.allowed.zone).toEqual({ create: true, write: true, delete: false, delegate: false });
      expect(sams.allowed.group).toEqual({ create: true, write: false, delete: false });
      expect(sams.grantable.zone.delete).toBe(false);
      expect(sams.group.dnssec_default).toBe(false);

      const own = expectStatus(await sam.post('/permission', {
        name: 'nora alone', user: { id: noraId }, inherit: false, zone: { create: true, write: true, delete: false }, zonerecord: { write: true },
      }), 201).body.permission;
      const noras = expectStatus(await nora.get(`/group/${mid.groupId}/access`), 200).body.access;
      expect(noras.applies).toEqual({ source: 'user', id: own.id, name: 'nora alone' });
      expect(noras.allowed.zonerecord).toEqual({ create: false, write: true, delete: false, delegate: false });
      expect(noras.allowed.self_write).toBe(false);
      expectStatus(await sam.delete(`/permission/${own.id}`), 200);
    } finally {
      expectStatus(await boss.delete(`/permission/${groupObject.id}`), 200);
    }
  });

  it('is 403 for a group outside the caller\'s reach, 404 for none, 400 for a bad id or query', async () => {
    refusal(await rival.get(`/group/${mid.groupId}/access`), 403, /outside yours/);
    refusal(await sam.get(`/group/${top.groupId}/access`), 403, /outside yours/);
    expect((await boss.get('/group/99999999/access')).status).toBe(404);
    expect((await boss.get('/group/abc/access')).status).toBe(400);
    expect((await boss.get(`/group/${mid.groupId}/access?x=1`)).status).toBe(400);
    expect((await t.client().get(`/group/${mid.groupId}/access`)).status).toBe(401);
  });
});
