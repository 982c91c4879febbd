// A parent zone may not take over a child zone's names (zone-tenancy.ts) by redirecting them from above: a DNAME at
// a name above the child's apex rewrites every name below it, the child's included, wherever the parent is served
// without the child (RFC 6672 §2.3: a DNAME's descendants are occluded, the delegation to the child too).
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, rulesOf, uniqueZone, type Json } from './dns-client';

jest.setTimeout(60_000);

let server: TestServer;
let alice: CookieClient;
let sue: CookieClient;

beforeAll(async () => {
  server = await startTestServer();
  const top = await server.seedUser({ group: 'Redirects', username: 'alice', isAdmin: true });
  await server.seedSubgroupUser({ parentId: top.groupId, group: 'Sub', username: 'sue' });
  alice = await server.login('alice@Redirects');
  sue = await server.login('sue@Sub');
});
afterAll(async () => server?.close());

async function zoneOf(client: CookieClient, zone: string): Promise<Json> {
  return expectStatus(await client.post('/zone', { zone }), 201).body.zone;
}

test('a DNAME in the parent above a child zone is refused (session API); elsewhere it is written', async () => {
  const corp = await zoneOf(sue, uniqueZone('dn'));
  await zoneOf(sue, `sub.x.${corp.zone}`);
  for (const owner of ['x', '@']) {
    const res = await sue.post('/zone_record', { zid: corp.id, owner, type: 'DNAME', target: 'attacker.example.' });
    expect([owner, res.status, rulesOf(res)]).toEqual([owner, 400, ['child_zone']]);
  }
  // Written elsewhere, then moved above the child by a change: refused too.
  const moved = await addRecord(sue, corp.id, { owner: 'elsewhere', type: 'DNAME', target: 'other.example.' });
  expect(rulesOf(await sue.put(`/zone_record/${moved.id}`, { owner: 'x' }))).toEqual(['child_zone']);
});

test('a zone file with a DNAME above a child zone is refused', async () => {
  const name = uniqueZone('df');
  await zoneOf(alice, `sub.x.${name}`);
  const zonefile = [
    `$ORIGIN ${name}`, '$TTL 3600',
    `@ IN SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600`,
    '@ IN NS ns1.example.net.',
    'x IN DNAME attacker.example.',
  ].join('\n');
  const res = await alice.post('/zone/import', { zone: name, zonefile });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain('sub.x.');
});

test("a child zone's names spelled with escapes or in another case are the child's names too", async () => {
  const corp = await zoneOf(sue, uniqueZone('esc'));
  await zoneOf(sue, `sub.${corp.zone}`);
  for (const owner of ['\\115ub', 'www.\\115\\117\\098', 'w\\119w.SuB', `www.sub.${corp.zone as string}`]) {
    const res = await sue.post('/zone_record', { zid: corp.id, owner, type: 'TXT', data: 'x' });
    expect([owner, res.status]).toEqual([owner, 400]);
  }
});

test('an NS in the parent that cuts off a name above a child zone is refused (it delegates the child away too)', async () => {
  const corp = await zoneOf(sue, uniqueZone('cut'));
  await zoneOf(sue, `sub.x.${corp.zone}`);
  const res = await sue.post('/zone_record', { zid: corp.id, owner: 'x', type: 'NS', dname: 'ns.attacker.example.' });
  expect([res.status, rulesOf(res)]).toEqual([400, ['child_zone']]);
  // The parent's own apex NS and a delegation elsewhere stay allowed.
  await addRecord(sue, corp.id, { owner: '@', type: 'NS', dname: 'ns2.example.net.' });
  await addRecord(sue, corp.id, { owner: 'y', type: 'NS', dname: 'ns.elsewhere.example.' });
  // The delegation to the child itself stays allowed, zones below the child notwithstanding.
  await zoneOf(sue, `deep.sub.x.${corp.zone}`);
  await addRecord(sue, corp.id, { owner: 'sub.x', type: 'NS', dname: 'ns3.example.net.' });

  const name = uniqueZone('cutf');
  await zoneOf(alice, `sub.x.${name}`);
  const zonefile = [
    `$ORIGIN ${name}`, '$TTL 3600',
    '@ IN SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600',
    '@ IN NS ns1.example.net.',
    'x IN NS ns.attacker.example.',
  ].join('\n');
  expect((await alice.post('/zone/import', { zone: name, zonefile })).status).toBe(400);
  await zoneOf(alice, `deep.sub.x.${name}`);
  const delegating = zonefile.replace('x IN NS ns.attacker.example.', 'sub.x IN NS ns3.example.net.');
  expectStatus(await alice.post('/zone/import', { zone: name, zonefile: delegating }), 201);
});
