import type { CookieClient } from './helpers/client';
import { PASSWORD, startTestServer, type TestServer } from './helpers/server';

const MISSING_AUTH = { statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' };

describe.each(['postgres', 'pglite'] as const)('users and groups on %s', (kind) => {
  let t: TestServer;
  // Tree: root (admin "boss", user "alice") → child (user "carol"); other root "rival" (user "mallory").
  let root: { userId: number; groupId: number };
  let alice: { userId: number; groupId: number };
  let child: { userId: number; groupId: number };
  let rival: { userId: number; groupId: number };
  let boss: CookieClient;
  let aliceClient: CookieClient;
  let carolClient: CookieClient;

  beforeAll(async () => {
    t = await startTestServer({ kind });
    root = await t.seedUser({ group: 'root.example', username: 'boss', isAdmin: true });
    alice = await t.seedUser({ group: 'root.example', username: 'alice' });
    child = await t.seedSubgroupUser({ parentId: root.groupId, group: 'child.root.example', username: 'carol' });
    rival = await t.seedUser({ group: 'rival.example', username: 'mallory', isAdmin: true });
    boss = await t.login('boss@root.example');
    aliceClient = await t.login('alice@root.example');
    carolClient = await t.login('carol@child.root.example');
  });
  afterAll(() => t?.close());

  describe('reading users', () => {
    test('GET /user/<id> returns the User response', async () => {
      const res = await aliceClient.get(`/user/${alice.userId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: { id: alice.userId, first_name: 'First', last_name: 'Last', username: 'alice', email: 'alice@example.com', is_admin: false, inherit_group_permissions: true, deleted: false },
        group: { id: root.groupId },
        meta: { api: { version: expect.stringMatching(/^\d+\.\d+\.\d+$/) }, msg: "here's your user" },
      });
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(JSON.stringify(res.body)).not.toMatch(/password|hash|salt/);
    });

    test('GET /user returns the signed-in user', async () => {
      const res = await carolClient.get('/user');
      expect(res.status).toBe(200);
      expect(res.body.user.username).toBe('carol');
      expect(res.body.group).toEqual({ id: child.groupId });
      expect(res.body.meta.msg).toBe('this is you');
    });

    test('without a cookie: 401', async () => {
      for (const path of ['/user', `/user/${alice.userId}`, `/group/${root.groupId}`]) {
        const res = await t.client().get(path);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(MISSING_AUTH);
      }
    });

    test('an unknown id is 404, a malformed id is 400 naming the field', async () => {
      const unknown = await aliceClient.get('/user/999999');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'User not found' });
      const malformed = await aliceClient.get('/user/abc');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toBe('Bad Request');
      expect(malformed.body.message).toContain('"id"');
      expect((await aliceClient.get('/user/0')).status).toBe(400);
      expect((await aliceClient.get(`/user/${alice.userId}?deleted=maybe`)).status).toBe(400);
    });

    test('permissions follow the group subtree: down yes, up and across no', async () => {
      expect((await aliceClient.get(`/user/${child.userId}`)).status).toBe(200); // parent group reads subgroup
      expect((await aliceClient.get(`/user/${root.userId}`)).status).toBe(200); // same group
      const up = await carolClient.get(`/user/${alice.userId}`);
      expect(up.status).toBe(403);
      expect(up.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('outside yours') });
      expect((await aliceClient.get(`/user/${rival.userId}`)).status).toBe(403);
      expect((await boss.get(`/user/${rival.userId}`)).status).toBe(403); // admins are bound to their subtree too
      expect((await carolClient.get(`/group/${root.groupId}`)).status).toBe(403);
      expect((await aliceClient.get(`/group/${child.groupId}`)).status).toBe(200);
    });

    test('unknown routes are 404 in the same shape and headers', async () => {
      const res = await t.client().get('/no/such/route');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /no/such/route' });
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    });
  });

  describe('creating, changing and deleting users', () => {
    const newUser = (gid: number, username: string) => ({
      gid,
      username,
      email: `${username}@Example.com`,
      password: PASSWORD,
      first_name: 'New',
      last_name: 'User',
    });

    test('only admins create users; 201 with the User response; the new user can sign in', async () => {
      const denied = await aliceClient.post('/user', newUser(root.groupId, 'route-test2'));
      expect(denied.status).toBe(403);
      expect(denied.body.message).toBe('Only administrators may create users');

      const res = await boss.post('/user', newUser(child.groupId, 'route-test2'));
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ username: 'route-test2', email: 'route-test2@example.com', is_admin: false, deleted: false });
      expect(res.body.group).toEqual({ id: child.groupId });
      expect(res.body.meta.msg).toBe('I created this user');
      expect(JSON.stringify(res.body)).not.toMatch(/password|hash|salt/);
      expect((await t.client().post('/session', { username: 'route-test2@child.root.example', password: PASSWORD })).status).toBe(200);
    });

    test('duplicate username in a group (any case) is 409; the same name in another group is fine', async () => {
      const dup = await boss.post('/user', newUser(root.groupId, 'ALICE'));
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ statusCode: 409, error: 'Conflict', message: 'A user with that username already exists in that group' });
      expect((await boss.post('/user', newUser(child.groupId, 'alice'))).status).toBe(201);
    });

    test('creating in a group outside the subtree is 403, in an unknown group 404', async () => {
      expect((await boss.post('/user', newUser(rival.groupId, 'intruder'))).status).toBe(403);
      expect((await boss.post('/user', newUser(999999, 'nobody'))).status).toBe(404);
    });

    test('bad input is 400 naming the field (outside production)', async () => {
      const res = await boss.post('/user', { ...newUser(root.groupId, 'x1y2z3'), email: 'not-an-email' });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^Invalid request payload input: "email"/);
      expect(res.body.validation).toEqual({ source: 'payload', keys: ['email'] });
      const missing = await boss.post('/user', { gid: root.groupId });
      expect(missing.status).toBe(400);
      expect(missing.body.validation.keys).toEqual(expect.arrayContaining(['username', 'email', 'password']));
      const extra = await boss.post('/user', { ...newUser(root.groupId, 'extra1'), is_root: true });
      expect(extra.status).toBe(400);
    });

    test('a non-admin edits only their own name, email and password', async () => {
      const own = await aliceClient.put(`/user/${alice.userId}`, { first_name: 'Alice' });
      expect(own.status).toBe(200);
      expect(own.body.user.first_name).toBe('Alice');
      expect(own.body.meta.msg).toBe('user updated');
      expect((await aliceClient.put(`/user/${root.userId}`, { first_name: 'Hacked' })).status).toBe(403);
      expect((await aliceClient.put(`/user/${alice.userId}`, { is_admin: true })).status).toBe(403);
      expect((await aliceClient.put(`/user/${alice.userId}`, { gid: child.groupId })).status).toBe(403);
      expect((await aliceClient.put(`/user/${alice.userId}`, {})).status).toBe(400);
      expect((await boss.put(`/user/${rival.userId}`, { first_name: 'X' })).status).toBe(403);
      expect((await boss.put('/user/999999', { first_name: 'X' })).status).toBe(404);
    });

    test('a password change ends the user\'s other sessions but keeps the current one', async () => {
      const { userId } = await t.seedUser({ group: 'root.example', username: 'pwchanger' });
      const a = await t.login('pwchanger@root.example');
      const b = await t.login('pwchanger@root.example');
      const newPassword = 'An0ther#Decent$Pass';
      expect((await a.put(`/user/${userId}`, { password: newPassword })).status).toBe(200);
      expect((await a.get('/session')).status).toBe(200);
      expect((await b.get('/session')).status).toBe(401);
      expect((await t.client().post('/session', { username: 'pwchanger@root.example', password: PASSWORD })).status).toBe(401);
      expect((await t.client().post('/session', { username: 'pwchanger@root.example', password: newPassword })).status).toBe(200);
    });

    test('soft delete: 200, then 404, ?deleted=true finds it, sessions end, login fails, restore brings it back', async () => {
      const { userId } = await t.seedUser({ group: 'root.example', username: 'leaver' });
      const leaver = await t.login('leaver@root.example');
      expect((await aliceClient.delete(`/user/${userId}`)).status).toBe(403);
      const del = await boss.delete(`/user/${userId}`);
      expect(del.status).toBe(200);
      expect(del.body.user).toMatchObject({ id: userId, deleted: true });
      expect(del.body.meta.msg).toBe('I deleted that user');
      expect((await boss.get(`/user/${userId}`)).status).toBe(404);
      const deleted = await boss.get(`/user/${userId}?deleted=true`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.user.deleted).toBe(true);
      expect((await boss.get(`/user/${alice.userId}?deleted=true`)).status).toBe(404); // live users are not "deleted"
      expect((await boss.delete(`/user/${userId}`)).status).toBe(404);
      expect((await leaver.get('/session')).status).toBe(401);
      expect((await t.client().post('/session', { username: 'leaver@root.example', password: PASSWORD })).status).toBe(401);

      const restored = await boss.put(`/user/${userId}`, { deleted: false });
      expect(restored.status).toBe(200);
      expect(restored.body.user.deleted).toBe(false);
      expect((await t.client().post('/session', { username: 'leaver@root.example', password: PASSWORD })).status).toBe(200);
    });

    test('admins cannot delete or demote themselves', async () => {
      expect((await boss.delete(`/user/${root.userId}`)).status).toBe(409);
      expect((await boss.put(`/user/${root.userId}`, { is_admin: false })).status).toBe(403);
    });

    test('a user demoted by an admin loses admin rights on the next request', async () => {
      const { userId } = await t.seedUser({ group: 'root.example', username: 'tempadmin', isAdmin: true });
      const temp = await t.login('tempadmin@root.example');
      expect((await temp.post('/group', { name: 'temp.root.example', parent_gid: root.groupId })).status).toBe(201);
      expect((await boss.put(`/user/${userId}`, { is_admin: false })).status).toBe(200);
      expect((await temp.post('/group', { name: 'temp2.root.example', parent_gid: root.groupId })).status).toBe(403);
    });
  });

  describe('groups', () => {
    test('GET /group/<id> returns the group', async () => {
      const res = await aliceClient.get(`/group/${child.groupId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        group: { id: child.groupId, name: 'child.root.example', parent_gid: root.groupId, dnssec_default: false, usable_ns: null, deleted: false },
        meta: { api: { version: expect.any(String) }, msg: "here's your group" },
      });
      expect((await aliceClient.get('/group/999999')).status).toBe(404);
    });

    test('create, rename, refuse duplicates and cycles, delete, restore', async () => {
      expect((await aliceClient.post('/group', { name: 'sub.root.example', parent_gid: root.groupId })).status).toBe(403);
      expect((await boss.post('/group', { name: 'sub.root.example', parent_gid: rival.groupId })).status).toBe(403);
      const created = await boss.post('/group', { name: 'sub.root.example', parent_gid: root.groupId });
      expect(created.status).toBe(201);
      expect(created.body.group).toMatchObject({ name: 'sub.root.example', parent_gid: root.groupId, deleted: false });
      expect(created.body.meta.msg).toBe('I created this group');
      const id = created.body.group.id as number;

      const dup = await boss.post('/group', { name: 'SUB.root.example', parent_gid: root.groupId });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toBe('Conflict');
      expect((await boss.post('/group', { name: 'x', parent_gid: root.groupId })).status).toBe(400);

      const renamed = await boss.put(`/group/${id}`, { name: 'renamed.root.example' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.group.name).toBe('renamed.root.example');
      const grandchild = await boss.post('/group', { name: 'deep.root.example', parent_gid: id });
      expect(grandchild.status).toBe(201);
      expect((await boss.put(`/group/${id}`, { parent_gid: grandchild.body.group.id })).status).toBe(400); // below itself

      expect((await boss.delete(`/group/${id}`)).status).toBe(409); // still has a subgroup
      expect((await boss.delete(`/group/${grandchild.body.group.id}`)).status).toBe(200);
      const del = await boss.delete(`/group/${id}`);
      expect(del.status).toBe(200);
      expect(del.body.group.deleted).toBe(true);
      expect((await boss.get(`/group/${id}`)).status).toBe(404);
      expect((await boss.get(`/group/${id}?deleted=true`)).status).toBe(200);
      expect((await boss.delete(`/group/${id}`)).status).toBe(404);
      const restored = await boss.put(`/group/${id}`, { deleted: false });
      expect(restored.status).toBe(200);
      expect(restored.body.group.deleted).toBe(false);
    });

    test('listing a group\'s users and subgroups follows the same permissions', async () => {
      const users = await aliceClient.get(`/group/${root.groupId}/users`);
      expect(users.status).toBe(200);
      expect(users.body.meta.msg).toBe('users in group');
      const names = (users.body.user as { username: string }[]).map((u) => u.username);
      expect(names).toEqual(expect.arrayContaining(['alice', 'boss']));
      expect(names).toEqual([...names].sort());
      expect(JSON.stringify(users.body)).not.toMatch(/password|hash|salt/);
      expect((await carolClient.get(`/group/${root.groupId}/users`)).status).toBe(403);
      expect((await aliceClient.get('/group/999999/users')).status).toBe(404);

      const subgroups = await aliceClient.get(`/group/${root.groupId}/subgroups`);
      expect(subgroups.status).toBe(200);
      expect(subgroups.body.group).toEqual(
        expect.arrayContaining([{ id: child.groupId, name: 'child.root.example', parent_gid: root.groupId, dnssec_default: false, usable_ns: null, deleted: false }]),
      );
      expect((await carolClient.get(`/group/${child.groupId}/subgroups`)).body.group).toEqual([]);
      expect((await carolClient.get(`/group/${root.groupId}/subgroups`)).status).toBe(403);
    });

    test('a group holding a zone or a nameserver cannot be deleted (409) until they are deleted', async () => {
      const group = await boss.post('/group', { name: 'zoned.root.example', parent_gid: root.groupId });
      expect(group.status).toBe(201);
      const gid = group.body.group.id as number;
      const zone = await boss.post('/zone', { gid, zone: 'zoned.example.', mailaddr: 'hostmaster.zoned.example.' });
      expect(zone.status).toBe(201);
      const refused = await boss.delete(`/group/${gid}`);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toBe('Cannot delete group: active zones still exist.');
      expect((await boss.delete(`/zone/${zone.body.zone.id}`)).status).toBe(200);
      const ns = await boss.post('/nameserver', { gid, name: 'ns1.zoned.example.', address: '192.0.2.53', export: { type: 'bind' } });
      expect(ns.status).toBe(201);
      expect((await boss.delete(`/group/${gid}`)).body.message).toBe('Cannot delete group: active nameservers still exist.');
      expect((await boss.delete(`/nameserver/${ns.body.nameserver.id}`)).status).toBe(200);
      expect((await boss.delete(`/group/${gid}`)).status).toBe(200);
    });

    test('a group with users cannot be deleted (409); nor can your own group', async () => {
      const res = await boss.delete(`/group/${child.groupId}`);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe('Cannot delete group: active users still exist.');
      expect((await boss.delete(`/group/${root.groupId}`)).status).toBe(409);
    });
  });
});
