// Issue 12: a login name means at most one user and costs one password check. Group names are unique
// service-wide (409 on a duplicate, any case), user@group is one indexed lookup, and only an admin above a
// group may rename it (the name is how logins find its users).
import { sql } from 'kysely';
import { PASSWORD, startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';

let t: TestServer;
let top: { userId: number; groupId: number };
let sub: { userId: number; groupId: number };
let topAdmin: CookieClient;
let subAdmin: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  top = await t.seedUser({ group: 'top.example', username: 'boss', isAdmin: true });
  sub = await t.seedSubgroupUser({ parentId: top.groupId, group: 'sub.top.example', username: 'subadmin', isAdmin: true });
  await t.seedUser({ group: 'GroupB', username: 'bob', password: 'the-real-bobs-password' });
  topAdmin = await t.login('boss@top.example');
  subAdmin = await t.login('subadmin@sub.top.example');
});
afterAll(async () => t?.close());

it('a group name already used anywhere (any case) is 409, for create, rename and restore', async () => {
  const shadow = await subAdmin.post('/group', { name: 'groupb', parent_gid: sub.groupId });
  expect(shadow.status).toBe(409);
  expect(shadow.body.message).toBe('A group with that name already exists (group names are unique: logins use them)');
  const own = await subAdmin.post('/group', { name: 'team-a', parent_gid: sub.groupId });
  expect(own.status).toBe(201);
  expect((await topAdmin.put(`/group/${own.body.group.id}`, { name: 'GROUPB' })).status).toBe(409);
  // A deleted group's name is free again; restoring the deleted one then collides.
  expect((await topAdmin.delete(`/group/${own.body.group.id}`)).status).toBe(200);
  const again = await subAdmin.post('/group', { name: 'team-a', parent_gid: sub.groupId });
  expect(again.status).toBe(201);
  expect((await topAdmin.put(`/group/${own.body.group.id}`, { deleted: false })).status).toBe(409);
});

it('user@group finds one user with one password check (username in any case, group name exact)', async () => {
  const client = t.client();
  expect((await client.post('/session', { username: 'BOB@groupb', password: 'the-real-bobs-password' })).status).toBe(401);
  const ok = await client.post('/session', { username: 'BOB@GroupB', password: 'the-real-bobs-password' });
  expect(ok.status).toBe(200);
  expect(ok.body.user.username).toBe('bob');
  // Both halves of the login name are unique keys, so the lookup cannot return a second candidate.
  const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = 'dns'
    and indexname in ('groups_name_key', 'users_group_username_key') order by indexname`.execute(t.deps.db);
  expect(indexes.rows.map((r) => r.indexdef)).toEqual([
    expect.stringMatching(/^CREATE UNIQUE INDEX groups_name_key ON dns.groups USING btree \(lower\(name\)\) WHERE \(deleted_at IS NULL\)$/),
    expect.stringMatching(/^CREATE UNIQUE INDEX users_group_username_key ON dns.users USING btree \(group_id, lower\(username\)\)/),
  ]);
  const wrong = await client.post('/session', { username: 'bob@GroupB', password: PASSWORD });
  expect(wrong.status).toBe(401);
});

it('a sub-group admin may not rename their own group; an admin of the parent may', async () => {
  const denied = await subAdmin.put(`/group/${sub.groupId}`, { name: 'renamed.top.example' });
  expect(denied.status).toBe(403);
  expect(denied.body.message).toBe('Only an admin of the parent group may rename this group');
  expect((await subAdmin.get(`/group/${sub.groupId}`)).body.group.name).toBe('sub.top.example');
  const allowed = await topAdmin.put(`/group/${sub.groupId}`, { name: 'renamed.top.example' });
  expect(allowed.status).toBe(200);
  expect((await t.client().post('/session', { username: 'subadmin@renamed.top.example', password: PASSWORD })).status).toBe(200);
});
