// NicTool's permission objects, a user's inherit_group_permissions and a group's usable_ns (issue 38.4), through
// HTTP: what NicTool's route tests do with /permission, and what Keyzone enforces of it (flags as limits within
// the group tree, usable_ns in zone creation's nameserver check, nobody loosening what limits themselves).
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, newNameserver, uniqueZone, type Json } from '../zones/dns-client';

const PASSWORD = 'Wh@tA-Decent#P6ssw0rd';
let t: TestServer;
let ada: CookieClient; // admin of the top group
let tom: CookieClient; // admin of the team below it
let ulla: CookieClient; // a user of the team
let rival: CookieClient; // another tenant's admin
let top: { userId: number; groupId: number };
let team: { userId: number; groupId: number };
let ullaId: number;
let ns: { top1: Json; top2: Json; team: Json };

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'perm.example', username: 'ada', isAdmin: true });
  team = await t.seedSubgroupUser({ parentId: top.groupId, group: 'team.perm.example', username: 'tom', isAdmin: true });
  await t.seedUser({ group: 'rival.example', username: 'rick', isAdmin: true });
  ada = await t.login('ada@perm.example');
  tom = await t.login('tom@team.perm.example');
  rival = await t.login('rick@rival.example');
  ullaId = expectStatus(await tom.post('/user', {
    gid: team.groupId, username: 'ulla', email: 'ulla@example.com', password: PASSWORD, first_name: 'Ulla', last_name: 'User',
  }), 201).body.user.id;
  ulla = await t.login('ulla@team.perm.example', PASSWORD);
  ns = {
    top1: await newNameserver(ada, { name: 'ns1.perm.net.' }),
    top2: await newNameserver(ada, { name: 'ns2.perm.net.' }),
    team: await newNameserver(tom, { name: 'ns.team.perm.net.' }),
  };
});
afterAll(async () => t?.close());

const zoneWith = (client: CookieClient, nameservers: number[]) => client.post('/zone', { zone: uniqueZone('p'), nameservers });

describe('a group\'s permission object', () => {
  let teamPermission: Json;

  it('is created by an administrator above the group, in NicTool\'s shape; nameserver.usable is the group\'s usable_ns', async () => {
    const res = expectStatus(await ada.post('/permission', {
      id: 4095, name: 'team rights', inherit: true, self_write: false,
      group: { id: team.groupId }, zone: { create: true, write: true, delete: false, delegate: true },
      zonerecord: { create: true, write: true, delete: true }, nameserver: { usable: [ns.top1.id] },
    }), 201);
    teamPermission = res.body.permission;
    expect(res.body).toEqual({
      permission: {
        id: expect.any(Number), name: 'team rights', inherit: true, self_write: false, deleted: false,
        group: { id: team.groupId, create: false, write: false, delete: false },
        user: { create: false, write: false, delete: false },
        nameserver: { usable: [ns.top1.id], create: false, write: false, delete: false },
        zone: { create: true, write: true, delete: false, delegate: true },
        zonerecord: { create: true, write: true, delete: true, delegate: false },
      },
      meta: { api: { version: expect.any(String) }, msg: 'the permission was created' },
    });
    expect(teamPermission.id).not.toBe(4095);
    expect(expectStatus(await ada.get(`/group/${team.groupId}`), 200).body.group.usable_ns).toEqual([ns.top1.id]);
    const read = expectStatus(await tom.get(`/permission/${teamPermission.id}`), 200).body;
    expect(read).toEqual({ permission: teamPermission, meta: { api: { version: expect.any(String) }, msg: "here's your permission" } });
    expect((await ada.post('/permission', { group: { id: team.groupId } })).status).toBe(409);
  });

  it('limits its group: flags within Keyzone\'s rules, usable_ns in the zones\' nameserver check', async () => {
    // usable_ns: a nameserver above the team must be listed; the team's own always may be used
    const zone = expectStatus(await zoneWith(tom, [ns.top1.id, ns.team.id]), 201).body.zone;
    const refused = await zoneWith(tom, [ns.top2.id]);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(`Group ${team.groupId} may not use nameserver ns2.perm.net. (${ns.top2.id}): it is not in the group's usable_ns`);
    expect((await tom.put(`/zone/${zone.id}`, { nameservers: [ns.top2.id] })).status).toBe(403);
    // nor may a zone served by one move into the team
    const topZone = expectStatus(await zoneWith(ada, [ns.top2.id]), 201).body.zone;
    expect((await ada.put(`/zone/${topZone.id}`, { gid: team.groupId })).status).toBe(403);
    expectStatus(await ada.delete(`/zone/${topZone.id}`), 200);
    // a zone file's apex NS records give the zone only the nameservers usable_ns lets it use
    const name = uniqueZone('imported');
    const zonefile = `$TTL 300\n@ IN SOA ns1.perm.net. hostmaster.perm.net. 1 7200 3600 1209600 300\n` +
      `@ IN NS ns1.perm.net.\n@ IN NS ns2.perm.net.\nwww IN A 192.0.2.80\n`;
    const imported = expectStatus(await tom.post('/zone/import', { zone: name, zonefile }), 201).body.zone;
    expect(imported.nameservers).toEqual([ns.top1.id]);
    // an administrator above, creating in the team, is held to the team's usable_ns too
    expect((await ada.post('/zone', { zone: uniqueZone('p'), gid: team.groupId, nameservers: [ns.top2.id] })).status).toBe(403);
    // the flags
    expectStatus(await tom.put(`/zone/${zone.id}`, { description: 'changed' }), 200);
    const noDelete = await tom.delete(`/zone/${zone.id}`);
    expect(noDelete.status).toBe(403);
    expect(noDelete.body.message).toBe(`You may not delete zones: your group's permissions (permission ${teamPermission.id} "team rights") do not allow it`);
    expect((await tom.post('/nameserver', { name: 'ns2.team.perm.net.', address: '192.0.2.9' })).status).toBe(403);
    expect((await tom.post('/user', { gid: team.groupId, username: 'vera', email: 'v@example.com', password: PASSWORD, first_name: 'V', last_name: 'W' })).status).toBe(403);
    expect((await tom.put(`/user/${ullaId}`, { first_name: 'Ulrike' })).status).toBe(403);
    // the group above has no object: Keyzone's rules alone
    expectStatus(await ada.delete(`/zone/${expectStatus(await zoneWith(ada, [ns.top2.id]), 201).body.zone.id}`), 200);
  });

  it('is written by nobody it limits: not the group\'s own administrator', async () => {
    expect((await tom.post('/permission', { group: { id: team.groupId }, zone: { delete: true } })).status).toBe(403);
    expect((await tom.delete(`/permission/${teamPermission.id}`)).status).toBe(403);
    expect((await tom.put(`/group/${team.groupId}`, { usable_ns: null })).status).toBe(403);
    expect((await ulla.post('/permission', { group: { id: team.groupId } })).status).toBe(403);
    // another tenant neither reads nor writes it
    expect((await rival.get(`/permission/${teamPermission.id}`)).status).toBe(403);
    expect((await rival.delete(`/permission/${teamPermission.id}`)).status).toBe(403);
  });

  it('usable_ns lists only nameservers of the groups above', async () => {
    const bad = await ada.put(`/group/${team.groupId}`, { usable_ns: [ns.team.id] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(`usable_ns may list only live nameservers of the groups above the group; not: ${ns.team.id}`);
    expect((await ada.put(`/group/${team.groupId}`, { usable_ns: [999999] })).status).toBe(400);
    expect((await ada.post('/group', { parent_gid: 0, name: 'top-with-ns.example', usable_ns: [ns.top1.id] })).status).toBe(400);
    const rivalNs = await newNameserver(rival, { name: 'ns.rival.net.' });
    expect((await ada.post('/permission', { user: { id: ullaId }, nameserver: { usable: [rivalNs.id] } })).status).toBe(201);
    // (a user's own usable list is kept, not enforced; the object goes again below)
    const own = expectStatus(await ada.get(`/permission?gid=${team.groupId}`), 200).body.permission.find((p: Json) => p.user.id === ullaId);
    expectStatus(await ada.delete(`/permission/${own.id}`), 200);
    expectStatus(await ada.put(`/user/${ullaId}`, { inherit_group_permissions: true }), 200);
  });

  it('a user\'s own object applies while inherit_group_permissions is false; only an administrator switches it, never for themselves', async () => {
    // tom may write ulla's object, but grant nothing his own (the team's) lacks
    const tooMuch = await tom.post('/permission', { user: { id: ullaId }, zone: { create: true, delete: true } });
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.message).toBe('You may not grant what your own permissions do not allow: zone_delete');
    expect((await tom.post('/permission', { user: { id: ullaId }, group: { id: top.groupId } })).status).toBe(400);
    const own = expectStatus(await tom.post('/permission', { name: 'ulla only', user: { id: ullaId }, group: { id: team.groupId }, zone: { create: true } }), 201).body.permission;
    expect(own).toMatchObject({ inherit: false, user: { id: ullaId }, group: { id: team.groupId }, zone: { create: true, write: false } });
    expect(expectStatus(await ulla.get(`/user/${ullaId}`), 200).body.user.inherit_group_permissions).toBe(false);
    const zone = expectStatus(await zoneWith(ulla, [ns.team.id]), 201).body.zone;
    expect((await ulla.post('/zone_record', { zid: zone.id, owner: 'www', type: 'A', address: '192.0.2.1' })).status).toBe(403);
    expect((await ulla.put(`/user/${ullaId}`, { first_name: 'Ulrike' })).status).toBe(403); // self_write false
    // her API token is held to the same object in the PowerDNS-compatible API
    const key = expectStatus(await ulla.post(`/user/${ullaId}/tokens`, { name: 'acme' }), 201).body.api_token.token as string;
    const patch = (records: unknown[]) => fetch(`${t.url}/api/v1/servers/localhost/zones/${zone.zone as string}`, {
      method: 'PATCH', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ rrsets: [{ name: `_acme-challenge.${zone.zone as string}`, type: 'TXT', ttl: 60, changetype: 'REPLACE', records }] }),
    });
    const refusedPatch = await patch([{ content: '"token"', disabled: false }]);
    expect(refusedPatch.status).toBe(403);
    expect(((await refusedPatch.json()) as { error: string }).error).toMatch(/^You may not create zone records: your own permissions/);
    expect((await ulla.put(`/user/${ullaId}`, { inherit_group_permissions: true })).status).toBe(403);
    expect((await tom.post('/permission', { user: { id: team.userId }, zone: { create: true } })).status).toBe(403); // his own
    // the group's object applies again once an administrator (who may change users) says so
    expect((await tom.put(`/user/${ullaId}`, { inherit_group_permissions: true })).status).toBe(403); // user.write false
    expectStatus(await ada.put(`/user/${ullaId}`, { inherit_group_permissions: true }), 200);
    expect((await ulla.get(`/permission/${own.id}`)).body.permission.inherit).toBe(true);
    expectStatus(await ulla.post('/zone_record', { zid: zone.id, owner: 'www', type: 'A', address: '192.0.2.1' }), 201);
    expect((await patch([{ content: '"token"', disabled: false }])).status).toBe(204);
    // GET /permission lists a group's objects and its users'
    const listed = expectStatus(await tom.get(`/permission?gid=${team.groupId}`), 200).body;
    expect(listed.meta.msg).toBe('here are the permissions');
    expect(listed.permission.map((p: Json) => p.name)).toEqual(['team rights', 'ulla only']);
    expect(expectStatus(await ada.get('/permission?include_subgroups=true'), 200).body.permission).toHaveLength(2);
    expect((await tom.get(`/permission?gid=${top.groupId}`)).status).toBe(403);
  });

  it('is deleted as NicTool\'s route test does it: 200, then 404; ?deleted=true finds it; the group is Keyzone\'s rules alone again', async () => {
    const deleted = expectStatus(await ada.delete(`/permission/${teamPermission.id}`), 200).body;
    expect(deleted.meta.msg).toBe('I deleted that permission');
    expect(deleted.permission.deleted).toBe(true);
    expect((await ada.delete(`/permission/${teamPermission.id}`)).status).toBe(404);
    expect((await ada.get(`/permission/${teamPermission.id}`)).status).toBe(404);
    expect(expectStatus(await ada.get(`/permission/${teamPermission.id}?deleted=true`), 200).body.permission.deleted).toBe(true);
    expect((await ada.get('/permission/999999')).status).toBe(404);
    const zone = expectStatus(await zoneWith(tom, [ns.team.id]), 201).body.zone;
    expectStatus(await tom.delete(`/zone/${zone.id}`), 200);
    // usable_ns is the group's own setting: it stays until PUT /group changes it
    expect((await zoneWith(tom, [ns.top2.id])).status).toBe(403);
    expect(expectStatus(await ada.put(`/group/${team.groupId}`, { usable_ns: null }), 200).body.group.usable_ns).toBeNull();
    expectStatus(await zoneWith(tom, [ns.top2.id]), 201);
    // a new object may be made once the old one is deleted
    expectStatus(await ada.post('/permission', { group: { id: team.groupId }, zone: { create: true } }), 201);
  });

  it('every change is in the history', async () => {
    const rows = await sql<{ action: string; n: string }>`select action, count(*) as n from dns.audit_log where object_type = 'permission'
      group by action order by action`.execute(t.deps.db);
    expect(rows.rows).toEqual([{ action: 'create', n: '4' }, { action: 'delete', n: '2' }]); // so far
  });
});

describe('nobody widens rights beyond their own', () => {
  it('a deleted object gives back Keyzone\'s rules, and a changed inherit_group_permissions the other object: only a writer who has those', async () => {
    // tom's own object: he may change users and create zones, nothing else
    expectStatus(await ada.post('/permission', { user: { id: team.userId, write: true }, zone: { create: true } }), 201);
    const lab = await t.seedSubgroupUser({ parentId: team.groupId, group: 'lab.team.perm.example', username: 'lars' });
    // a group's object that tom writes (within his own), but may not delete: the lab would get Keyzone's rules alone
    const labObject = expectStatus(await tom.post('/permission', { group: { id: lab.groupId }, zone: { create: true } }), 201).body.permission;
    const refused = await tom.delete(`/permission/${labObject.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^You may not delete these permissions: it would allow what your own permissions do not: group_create, /);
    expectStatus(await ada.delete(`/permission/${labObject.id}`), 200);
    // lars's own object applies; switching him to the group's (none: Keyzone's rules) widens him beyond tom
    expectStatus(await ada.post('/permission', { user: { id: lab.userId }, zone: { create: true } }), 201);
    const switched = await tom.put(`/user/${lab.userId}`, { inherit_group_permissions: true });
    expect(switched.status).toBe(403);
    expect(switched.body.message).toMatch(/^You may not change which permissions apply to this user: it would allow what your own permissions do not: /);
    expect(expectStatus(await ada.put(`/user/${lab.userId}`, { inherit_group_permissions: true }), 200).body.user.inherit_group_permissions).toBe(true);
  });
});

describe('PUT /permission/<id> (NicTool HEAD)', () => {
  it('changes what it is given and keeps the rest; the object\'s group or user stays; the same writers and limits', async () => {
    const ops = await t.seedSubgroupUser({ parentId: top.groupId, group: 'ops.perm.example', username: 'otto' });
    const created = expectStatus(await ada.post('/permission', { name: 'ops', group: { id: ops.groupId }, zone: { create: true } }), 201).body.permission;
    const changed = expectStatus(await ada.put(`/permission/${created.id}`, { name: 'ops team', zone: { delete: true }, nameserver: { usable: [ns.top1.id] } }), 200).body;
    expect(changed.meta.msg).toBe('permission updated');
    expect(changed.permission).toMatchObject({ id: created.id, name: 'ops team', zone: { create: true, write: false, delete: true }, nameserver: { usable: [ns.top1.id] } });
    expect(expectStatus(await ada.get(`/group/${ops.groupId}`), 200).body.group.usable_ns).toEqual([ns.top1.id]);
    expect((await ada.put(`/permission/${created.id}`, { group: { id: team.groupId } })).status).toBe(400);
    expect((await ada.put(`/permission/${created.id}`, {})).status).toBe(400);
    expect((await ada.put('/permission/999999', { name: 'x' })).status).toBe(404);
    expect((await tom.put(`/permission/${created.id}`, { name: 'mine now' })).status).toBe(403); // not above ops
    // a user's object: inherit is the user's inherit_group_permissions
    const otto = expectStatus(await ada.post('/permission', { user: { id: ops.userId }, zone: { create: true } }), 201).body.permission;
    expect(otto.inherit).toBe(false);
    expect(expectStatus(await ada.put(`/permission/${otto.id}`, { inherit: true }), 200).body.permission.inherit).toBe(true);
    expect(expectStatus(await ada.get(`/user/${ops.userId}`), 200).body.user.inherit_group_permissions).toBe(true);
    // tom (his own object: change users, create zones) may not give lars a right he lacks
    const lars = expectStatus(await ada.get('/permission?gid=' + team.groupId + '&include_subgroups=true'), 200).body.permission
      .find((p: Json) => p.user.id !== undefined && p.user.id !== team.userId && p.user.id !== ullaId && p.deleted === false);
    const widened = await tom.put(`/permission/${lars.id}`, { zone: { delete: true } });
    expect(widened.status).toBe(403);
    expect(widened.body.message).toBe('You may not change these permissions: it would allow what your own permissions do not: zone_delete');
    expectStatus(await tom.put(`/permission/${lars.id}`, { name: 'lars', zone: { create: false } }), 200);
  });
});

describe('refused input', () => {
  it('needs a user or a group; ids and flags are typed; unknown fields are a 400', async () => {
    expect((await ada.post('/permission', { name: 'nobody' })).status).toBe(400);
    expect((await ada.post('/permission', { group: { id: team.groupId }, zone: { create: 'yes' } })).status).toBe(400);
    expect((await ada.post('/permission', { group: { id: team.groupId }, colour: 'blue' })).status).toBe(400);
    expect((await ada.post('/permission', { group: { id: 999999 } })).status).toBe(404);
    expect((await ada.post('/permission', { user: { id: 999999 } })).status).toBe(404);
    expect((await ada.get('/permission/abc')).status).toBe(400);
    expect((await t.client().get('/permission')).status).toBe(401);
  });
});
