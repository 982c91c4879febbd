// The DNS console's newer API surfaces (issue 42) from an attacker's side, through HTTP against a real database:
// publish-now answers another tenant as GET does and never 500s on odd ids or bodies, cross-site writes to it are
// refused, and GET /group/<id>/access predicts what the API then allows (allowed ⇔ the write succeeds) for an
// unrestricted administrator, an administrator limited by their own permission object, and a plain user.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, type Json } from '../zones/dns-client';

let t: TestServer;
let boss: CookieClient; // admin of the top group, no permission object
let sam: CookieClient; // admin of "mid", limited by his own object
let nora: CookieClient; // a plain user of "mid"
let rival: CookieClient; // admin of another tenant
let top: { userId: number; groupId: number };
let mid: { userId: number; groupId: number };
let zoneId: number;

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'surf.example', username: 'boss', isAdmin: true });
  mid = await t.seedSubgroupUser({ parentId: top.groupId, group: 'mid.surf.example', username: 'sam', isAdmin: true });
  await t.seedUser({ group: 'rival.example', username: 'rival', isAdmin: true });
  boss = await t.login('boss@surf.example');
  sam = await t.login('sam@mid.surf.example');
  rival = await t.login('rival@rival.example');
  expectStatus(await boss.post('/user', {
    gid: mid.groupId, username: 'nora', email: 'nora@example.com', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'Nora', last_name: 'User',
  }), 201);
  nora = await t.login('nora@mid.surf.example');
  // sam may create users and groups but not change or delete groups, nor delete users
  expectStatus(await boss.post('/permission', {
    name: 'sam limited', inherit: false, self_write: true,
    user: { id: mid.userId, create: true, write: true, delete: false },
    group: { create: true, write: false, delete: false },
    zone: { create: true, write: true, delete: false },
  }), 201);
  zoneId = expectStatus(await boss.post('/zone', { gid: mid.groupId, zone: 'pub.surf.example.' }), 201).body.zone.id;
}, 120_000);
afterAll(async () => t?.close());

describe('publish now', () => {
  it('answers another tenant as GET does, and an unknown id with 404', async () => {
    expect((await rival.get(`/zone/${zoneId}`)).status).toBe(403);
    expect((await rival.post(`/zone/${zoneId}/publish`, {})).status).toBe(403);
    expect((await boss.post('/zone/2147483647/publish', {})).status).toBe(404);
    expect((await boss.post('/nameserver/2147483647/publish', {})).status).toBe(404);
  });

  it('gives a clear 4xx, never a 500, for odd ids, queries and bodies', async () => {
    for (const id of ['0', '-1', '1.5', 'abc', '99999999999999999999', '1e3', '%00', "1'--", '0x10']) {
      for (const path of [`/zone/${id}/publish`, `/nameserver/${id}/publish`, `/group/${id}/access`]) {
        const res = path.endsWith('access') ? await boss.get(path) : await boss.post(path, {});
        expect([400, 404]).toContain(res.status);
      }
    }
    for (const path of [`/zone/${zoneId}/publish?x=1`, `/group/${mid.groupId}/access?deleted=true`]) {
      const res = path.includes('access') ? await boss.get(path) : await boss.post(path, {});
      expect(res.status).toBe(400);
    }
    for (const body of ['[1,2]', '"x"', '{"zone":', 'null']) {
      const res = await boss.request('POST', `/zone/${zoneId}/publish`, { raw: body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });

  it('refuses a write sent from another origin\'s page', async () => {
    const res = await boss.request('POST', `/zone/${zoneId}/publish`, { raw: '{}', headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
  });
});

describe('GET /group/<id>/access predicts what the API allows', () => {
  const access = async (client: CookieClient, gid: number): Promise<Json> => expectStatus(await client.get(`/group/${gid}/access`), 200).body.access;
  let n = 0;

  // Each write is tried on a fresh subgroup of "mid" (so a success changes nothing the next check reads).
  async function checkOn(client: CookieClient, label: string) {
    const g = expectStatus(await boss.post('/group', { name: `g${++n}.mid.surf.example`, parent_gid: mid.groupId }), 201).body.group.id as number;
    const a = await access(client, g);
    const ok = (res: { status: number }) => res.status >= 200 && res.status < 300;
    const outcomes: Record<string, [boolean, boolean]> = {
      rename: [a.group.rename, ok(await client.put(`/group/${g}`, { name: `r${n}.mid.surf.example` }))],
      dnssec_default: [a.group.dnssec_default, ok(await client.put(`/group/${g}`, { dnssec_default: true }))],
      move: [a.group.move, ok(await client.put(`/group/${g}`, { parent_gid: top.groupId }))],
      user_create: [a.allowed.user.create, ok(await client.post('/user', {
        gid: g, username: `user${n}`, email: `u${n}@example.com`, password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'U', last_name: 'U',
      }))],
      group_create: [a.allowed.group.create, ok(await client.post('/group', { name: `c${n}.mid.surf.example`, parent_gid: g }))],
      permissions: [a.group.permissions, ok(await client.post('/permission', { name: 'p', group: { id: g } }))],
    };
    const fresh = expectStatus(await boss.post('/group', { name: `d${n}.mid.surf.example`, parent_gid: mid.groupId }), 201).body.group.id as number;
    const b = await access(client, fresh);
    outcomes.delete = [b.group.delete, ok(await client.delete(`/group/${fresh}`))];
    for (const [what, [predicted, actual]] of Object.entries(outcomes)) expect(`${label} ${what}: ${actual}`).toBe(`${label} ${what}: ${predicted}`);
  }

  it('for an unrestricted administrator', async () => checkOn(boss, 'boss'), 60_000);
  it('for an administrator limited by his own object', async () => checkOn(sam, 'sam'), 60_000);
  it('for a plain user', async () => checkOn(nora, 'nora'), 60_000);

  it('for one\'s own group (nobody renames, moves or sets the permissions of their own group)', async () => {
    const a = await access(sam, mid.groupId);
    expect(a.group).toMatchObject({ rename: false, move: false, permissions: false, delete: false });
    expect((await sam.put(`/group/${mid.groupId}`, { name: 'x.surf.example' })).status).toBe(403);
    expect((await sam.post('/permission', { name: 'p', group: { id: mid.groupId } })).status).toBe(403);
  });

  it('answers another tenant\'s group as GET does', async () => {
    expect((await rival.get(`/group/${mid.groupId}`)).status).toBe(403);
    expect((await rival.get(`/group/${mid.groupId}/access`)).status).toBe(403);
  });
});

describe('the permission editor\'s calls cannot widen rights', () => {
  it('a limited administrator grants nobody what he lacks, nor frees himself', async () => {
    const own = expectStatus(await sam.get(`/permission?gid=${mid.groupId}`), 200).body.permission.find((p: Json) => p.user?.id === mid.userId);
    expect((await sam.put(`/permission/${own.id}`, { group: { write: true } })).status).toBe(403);
    expect((await sam.delete(`/permission/${own.id}`)).status).toBe(403);
    expect((await sam.put(`/user/${mid.userId}`, { inherit_group_permissions: true })).status).toBe(403);
    const noraId = expectStatus(await sam.get(`/group/${mid.groupId}/users`), 200).body.user.find((u: Json) => u.username === 'nora').id;
    expect((await sam.post('/permission', { name: 'n', inherit: false, user: { id: noraId }, group: { delete: true } })).status).toBe(403);
    expect((await nora.put(`/user/${noraId}`, { inherit_group_permissions: false })).status).toBe(403);
    expect((await nora.put(`/user/${noraId}`, { is_admin: true })).status).toBe(403);
  });
});
