// An administrator whose own permission object takes rights away must not get them back through a user of their
// own making: a user created in (or moved to) a group without an object has every right, so the zone moved there
// could be deleted as that user; and setting the password of a user who may do more would hand over that user.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus } from '../zones/dns-client';

const PASSWORD = 'Wh@tA-Decent#P6ssw0rd';
let t: TestServer;
let boss: CookieClient; // admin of the top group, no permission object
let sam: CookieClient; // admin of "mid", without zone_delete by his own object
let mid: { userId: number; groupId: number };
let bossGroup: number; // a subgroup of mid made by boss: no permission object
let zoneId: number;

beforeAll(async () => {
  t = await startTestServer();
  const top = await t.seedUser({ group: 'lim.example', username: 'boss', isAdmin: true });
  mid = await t.seedSubgroupUser({ parentId: top.groupId, group: 'mid.lim.example', username: 'sam', isAdmin: true });
  boss = await t.login('boss@lim.example');
  sam = await t.login('sam@mid.lim.example');
  expectStatus(await boss.post('/permission', {
    name: 'sam without zone delete', inherit: false, self_write: true,
    user: { id: mid.userId, create: true, write: true, delete: true },
    group: { create: true, write: true, delete: true },
    zone: { create: true, write: true, delete: false },
  }), 201);
  bossGroup = expectStatus(await boss.post('/group', { name: 'open.mid.lim.example', parent_gid: mid.groupId }), 201).body.group.id;
  zoneId = expectStatus(await sam.post('/zone', { gid: mid.groupId, zone: 'victim.lim.example.' }), 201).body.zone.id;
  expect((await sam.delete(`/zone/${zoneId}`)).status).toBe(403);
}, 120_000);
afterAll(async () => t?.close());

const newUser = (gid: number, username: string, extra: Record<string, unknown> = {}) => ({
  gid, username, email: `${username}@example.com`, password: PASSWORD, first_name: 'N', last_name: 'U', ...extra,
});

test('a user in a group without a permission object (every right) is refused, naming what to do', async () => {
  const res = await sam.post('/user', newUser(bossGroup, 'helper', { is_admin: true }));
  expect(res.status).toBe(403);
  expect(res.body.message).toMatch(/zone_delete.*permission object within yours/);
  expect((await boss.get(`/user/${mid.userId}`)).status).toBe(200);
});

test('a group he makes starts with his own rights, so its users can do no more than he can', async () => {
  const gid = expectStatus(await sam.post('/group', { name: 'mine.mid.lim.example', parent_gid: mid.groupId }), 201).body.group.id;
  expectStatus(await sam.post('/user', newUser(gid, 'minion', { is_admin: true })), 201);
  expectStatus(await sam.put(`/zone/${zoneId}`, { gid }), 200);
  const minion = await t.login('minion@mine.mid.lim.example');
  expect((await minion.delete(`/zone/${zoneId}`)).status).toBe(403);
  expectStatus(await sam.put(`/zone/${zoneId}`, { gid: mid.groupId }), 200);
});

test('a user who may do more cannot be changed (password, admin flag) nor be moved where they would', async () => {
  const strong = expectStatus(await boss.post('/user', newUser(bossGroup, 'strong')), 201).body.user.id;
  expect((await sam.put(`/user/${strong}`, { password: 'An0ther#Decent-Passw0rd' })).status).toBe(403);
  expect((await sam.put(`/user/${strong}`, { is_admin: true })).status).toBe(403);
  const own = expectStatus(await sam.post('/group', { name: 'own.mid.lim.example', parent_gid: mid.groupId }), 201).body.group.id;
  const weak = expectStatus(await sam.post('/user', newUser(own, 'weak')), 201).body.user.id;
  expect((await sam.put(`/user/${weak}`, { gid: bossGroup })).status).toBe(403);
  expect((await sam.put(`/user/${weak}`, { first_name: 'Still' })).status).toBe(200);
});
