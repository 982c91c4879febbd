// Tenancy of names (issue 38.1): a user of one group may not create a zone below or above a live zone of a group
// they may not manage (a nameserver serves the most specific zone it holds, so that zone would take over the other
// group's names), unless an administrator who manages that zone allowed it (POST /zone/<id>/delegation); the same
// for restores, moves and zone file imports. A parent zone (session API or PowerDNS API token) may not write names
// at or below a child zone Keyzone holds, apart from the delegation (NS, DS at the child's apex, glue).
// Real publishing: one PowerDNS and one BIND nameserver of the top group, shared with both subgroups.
import type { CookieClient } from '../helpers/client';
import { dig, eventually, type Bind, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { type TestServer } from '../helpers/server';
import { addRecord, expectStatus, rulesOf, uniqueZone, type Json } from './dns-client';

let stand: PublishingStand;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient; // administrator of the top group
let sue: CookieClient; // group Sub
let mallory: CookieClient; // group Sub2, a sibling of Sub
let aliceId: number;
let subId: number;
let sub2Id: number;
let sueId: number;
let nameservers: number[];
let ports: Array<[string, number]>;

beforeAll(async () => {
  stand = await startPublishingStand('tenancy', 'ns1.tenancy-pdns.test.');
  ({ pdns, bind, server } = stand);
  const top = await server.seedUser({ group: 'Tenancy', username: 'alice', isAdmin: true });
  aliceId = top.userId;
  ({ groupId: subId, userId: sueId } = await server.seedSubgroupUser({ parentId: top.groupId, group: 'Sub', username: 'sue' }));
  ({ groupId: sub2Id } = await server.seedSubgroupUser({ parentId: top.groupId, group: 'Sub2', username: 'mallory' }));
  alice = await server.login('alice@Tenancy');
  sue = await server.login('sue@Sub');
  mallory = await server.login('mallory@Sub2');
  const ns1 = expectStatus(await alice.post('/nameserver', { name: 'ns1.tenancy-pdns.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201);
  const ns2 = expectStatus(await alice.post('/nameserver', { name: 'ns2.tenancy-bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201);
  nameservers = [ns1.body.nameserver.id, ns2.body.nameserver.id];
  ports = [['PowerDNS', pdns.dnsPort], ['BIND', bind.dnsPort]];
}, 120_000);

afterAll(async () => {
  await stand?.stop();
});

async function zoneOf(client: CookieClient, zone: string, body: Record<string, unknown> = {}): Promise<Json> {
  return expectStatus(await client.post('/zone', { zone, nameservers, ...body }), 201).body.zone;
}

async function servedEverywhere(name: string, type: string, expected: string[]): Promise<void> {
  for (const [kind, port] of ports) {
    await eventually(`${name} ${type} on ${kind}`, async () => (await dig(port, name, type)).join() === expected.join());
  }
}

/** A 403 that names neither the other group's zone id nor says more than "another group". */
function expectForeignRefusal(res: { status: number; body: Json }, direction: 'above' | 'below', victim: Json): void {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  // The name asked for, and nothing of the other zone: neither its id nor (when it lies below) its name.
  expect(res.body.message).toMatch(new RegExp(`^\\S+: a zone of another group holds names ${direction} this one; an administrator who manages ` +
    'that zone may allow it \\(POST /zone/<id>/delegation\\)$'));
  if (direction === 'below') expect(res.body.message).not.toContain(victim.zone);
}

describe('zones of another group', () => {
  test('a zone below another group\'s zone is refused, in any spelling, and the victim\'s answer stays on both nameservers', async () => {
    const victim = await zoneOf(sue, uniqueZone('mz'));
    await addRecord(sue, victim.id, { owner: 'www', type: 'A', address: '192.0.2.10' });
    await servedEverywhere(`www.${victim.zone}`, 'A', ['192.0.2.10']);

    expectForeignRefusal(await mallory.post('/zone', { zone: `www.${victim.zone}`, nameservers }), 'above', victim);
    const shouted = `WWW.${(victim.zone as string).toUpperCase().replace(/\.$/, '')}`;
    expectForeignRefusal(await mallory.post('/zone', { zone: shouted, nameservers }), 'above', victim);
    expectForeignRefusal(await mallory.post('/zone', { zone: `a.b.c.${victim.zone}` }), 'above', victim);
    // The refusal left nothing: Mallory has no zone, and both nameservers still give Sue's address.
    expect((await mallory.get('/zone')).body.zone).toEqual([]);
    await servedEverywhere(`www.${victim.zone}`, 'A', ['192.0.2.10']);
  });

  test('a zone above another group\'s zone is refused (up to the top-level name)', async () => {
    const base = uniqueZone('up');
    const victim = await zoneOf(sue, `shop.${base}`);
    expectForeignRefusal(await mallory.post('/zone', { zone: base, nameservers }), 'below', victim);
    expectForeignRefusal(await mallory.post('/zone', { zone: 'example.' }), 'below', victim);
    expectForeignRefusal(await mallory.post('/zone', { zone: 'EXAMPLE' }), 'below', victim);
    // A sibling name is nobody's: it is created.
    await zoneOf(mallory, `other-${base}`);
  });

  test('zones above and below one\'s own, or a group one manages, keep working', async () => {
    const base = uniqueZone('own');
    const parent = await zoneOf(sue, base);
    const child = await zoneOf(sue, `dev.${base}`);
    await zoneOf(sue, `x.dev.${base}`);
    // The top group's administrator manages both subgroups: a zone for Sub2 below Sue's zone is theirs to place.
    const placed = expectStatus(await alice.post('/zone', { zone: `ops.${base}`, gid: sub2Id, nameservers }), 201).body.zone;
    expect(placed.gid).toBe(sub2Id);
    await addRecord(sue, child.id, { owner: 'www', type: 'A', address: '192.0.2.20' });
    await servedEverywhere(`www.dev.${base}`, 'A', ['192.0.2.20']);
    expect(parent.gid).toBe(subId);
  });

  test('an administrator\'s delegation lets the other group create it (and records who allowed it and when)', async () => {
    const victim = await zoneOf(sue, uniqueZone('dlg'));
    const name = `dev.${victim.zone}`;
    // Only an administrator who manages the zone allows; Mallory cannot even read the list.
    expectStatus(await sue.post(`/zone/${victim.id}/delegation`, { zone: name, gid: sub2Id }), 403);
    expectStatus(await mallory.post(`/zone/${victim.id}/delegation`, { zone: name, gid: sub2Id }), 403);
    expectStatus(await mallory.get(`/zone/${victim.id}/delegation`), 403);
    // The name must lie above or below the zone; the group must exist.
    expect(rulesOf(expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: uniqueZone(), gid: sub2Id }), 400))).toEqual(['not_related']);
    expect(rulesOf(expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: victim.zone, gid: sub2Id }), 400))).toEqual(['not_related']);
    expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: name, gid: 999999 }), 404);
    expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: name, gid: sub2Id, extra: 1 }), 400);

    const allowed = expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: name.toUpperCase(), gid: sub2Id }), 201).body.delegation;
    expect(allowed).toMatchObject({ zid: victim.id, zone: name, gid: sub2Id, allowed_by: aliceId, deleted: false, deleted_by: null });
    expect(Date.parse(allowed.allowed_at)).not.toBeNaN();
    expectStatus(await alice.post(`/zone/${victim.id}/delegation`, { zone: name, gid: sub2Id }), 409);
    expect((await sue.get(`/zone/${victim.id}/delegation`)).body.delegation).toEqual([allowed]);

    // For Sub2, at that name only: another name below is still refused.
    expectForeignRefusal(await mallory.post('/zone', { zone: `qa.${victim.zone}`, nameservers }), 'above', victim);
    const child = await zoneOf(mallory, name);
    await addRecord(mallory, child.id, { owner: 'app', type: 'A', address: '198.51.100.66' });
    await servedEverywhere(`app.${name}`, 'A', ['198.51.100.66']);

    // Withdrawn: the zone stays, but it cannot be deleted and restored (nor created again) without a new one.
    const withdrawn = expectStatus(await alice.delete(`/zone/${victim.id}/delegation/${allowed.id}`), 200).body.delegation;
    expect(withdrawn).toMatchObject({ id: allowed.id, deleted: true, deleted_by: aliceId });
    expectStatus(await alice.delete(`/zone/${victim.id}/delegation/${allowed.id}`), 404);
    expect((await sue.get(`/zone/${victim.id}/delegation`)).body.delegation).toEqual([]);
    expect((await sue.get(`/zone/${victim.id}/delegation?deleted=true`)).body.delegation).toEqual([withdrawn]);
    expectStatus(await mallory.get(`/zone/${child.id}`), 200);
    expectStatus(await mallory.delete(`/zone/${child.id}`), 200);
    expectForeignRefusal(await mallory.put(`/zone/${child.id}`, { deleted: false }), 'above', victim);
  });

  test('a zone deleted and restored after another group created one below it is refused, both ways', async () => {
    const base = uniqueZone('rst');
    const mine = await zoneOf(mallory, base);
    expectStatus(await mallory.delete(`/zone/${mine.id}`), 200);
    const theirs = await zoneOf(sue, `a.${base}`);
    expectForeignRefusal(await mallory.put(`/zone/${mine.id}`, { deleted: false }), 'below', theirs);
    expect((await mallory.get(`/zone/${mine.id}?deleted=true`)).body.zone.deleted).toBe(true);
    // And the other way round: a child restored under a parent someone else created meanwhile.
    const base2 = uniqueZone('rst2');
    const child = await zoneOf(mallory, `www.${base2}`);
    expectStatus(await mallory.delete(`/zone/${child.id}`), 200);
    const parent = await zoneOf(sue, base2);
    expectForeignRefusal(await mallory.put(`/zone/${child.id}`, { deleted: false }), 'above', parent);
    // Sue's own deleted zone comes back: the zone below it is hers.
    expectStatus(await sue.delete(`/zone/${parent.id}`), 200);
    expectStatus(await sue.post('/zone', { zone: `x.${base2}` }), 201);
    expectStatus(await sue.put(`/zone/${parent.id}`, { deleted: false }), 200);
  });

  test('a zone is never renamed, and moving one into another group needs that group\'s right to the name', async () => {
    const base = uniqueZone('mv');
    const zone = await zoneOf(sue, base);
    expectStatus(await sue.put(`/zone/${zone.id}`, { zone: `www.${base}` }), 400);
    // Alice places a zone of Sub2 below Sue's; moving it to Sub2 is hers to do; Mallory moving hers cannot reach Sub.
    const below = expectStatus(await alice.post('/zone', { zone: `www.${base}` }), 201).body.zone;
    expectStatus(await alice.put(`/zone/${below.id}`, { gid: sub2Id }), 200);
    expectStatus(await mallory.put(`/zone/${below.id}`, { gid: subId }), 403);
  });

  test('a zone file import below or above another group\'s zone is refused', async () => {
    const victim = await zoneOf(sue, uniqueZone('imp'));
    const file = (zone: string) => `$ORIGIN ${zone}\n$TTL 3600\n@ SOA ns1.tenancy-pdns.test. hostmaster.example.com. 1 3600 600 86400 3600\n` +
      '@ NS ns1.tenancy-pdns.test.\n@ NS ns2.tenancy-bind.test.\nwww A 203.0.113.66\n';
    for (const [zone, direction] of [[`www.${victim.zone}`, 'above'], ['example.', 'below']] as const) {
      const res = await mallory.request('POST', `/zone/import?zone=${zone}`, { raw: file(zone), headers: { 'content-type': 'text/dns' } });
      expectForeignRefusal(res, direction, victim);
    }
    expect((await mallory.get('/zone')).body.zone.map((z: Json) => z.zone)).not.toContain(`www.${victim.zone}`);
    for (const [kind, port] of ports) expect([kind, await dig(port, `www.www.${victim.zone}`, 'A')]).toEqual([kind, []]);
  });

  test('two concurrent creates, one below the other, never both succeed', async () => {
    for (let i = 0; i < 20; i++) {
      const base = uniqueZone('race');
      const [parent, child] = await Promise.all([
        sue.post('/zone', { zone: base }),
        mallory.post('/zone', { zone: `www.${base}` }),
      ]);
      expect([parent.status, child.status].sort()).toEqual([201, 403]);
    }
  });
});

test('the delegation routes are in the OpenAPI document, and an unknown zone is a 404', async () => {
  const doc = (await alice.get('/documentation/openapi.json')).body;
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/zone/{id}/delegation', '/zone/{id}/delegation/{delegation_id}']));
  expect(Object.keys(doc.paths['/zone/{id}/delegation'])).toEqual(expect.arrayContaining(['get', 'post']));
  expect(doc.paths['/zone'].post.description).toContain('POST /zone/<id>/delegation');
  expectStatus(await alice.get('/zone/999999/delegation'), 404);
  expectStatus(await alice.post('/zone/999999/delegation', { zone: 'x.example.', gid: subId }), 404);
});

describe('names of a child zone in its parent', () => {
  let corp: Json;
  let sub: Json;

  beforeAll(async () => {
    corp = await zoneOf(sue, uniqueZone('corp'));
    sub = await zoneOf(sue, `sub.${corp.zone}`);
    await addRecord(sue, sub.id, { owner: '_acme-challenge', type: 'TXT', data: 'child-token' });
    await servedEverywhere(`_acme-challenge.sub.${corp.zone}`, 'TXT', ['"child-token"']);
  });

  test('the session API refuses records at or below the child in the parent, but NS, DS and glue of the delegation', async () => {
    for (const body of [
      { owner: '_acme-challenge.sub', type: 'TXT', data: 'parent-token' },
      { owner: 'sub', type: 'A', address: '203.0.113.66' },
      { owner: 'www.sub', type: 'CNAME', cname: 'elsewhere.example.' },
      { owner: `x.SUB.${(corp.zone as string).toUpperCase()}`, type: 'TXT', data: 'shouted' },
    ]) {
      const res = await sue.post('/zone_record', { zid: corp.id, ...body });
      expect([res.status, rulesOf(res)]).toEqual([400, ['child_zone']]);
      expect(res.body.message).toContain(`lies in the zone ${sub.zone}`);
    }
    // The child names an in-zone nameserver of its own; the parent may hold its glue (before the NS that needs it)
    // and the delegation's NS and DS at the child's apex. An address at any other name below the child stays refused.
    await addRecord(sue, sub.id, { owner: 'ns1', type: 'A', address: '192.0.2.53' });
    await addRecord(sue, sub.id, { owner: '@', type: 'NS', dname: `ns1.sub.${corp.zone}` });
    await addRecord(sue, corp.id, { owner: 'ns1.sub', type: 'A', address: '192.0.2.53' });
    await addRecord(sue, corp.id, { owner: 'sub', type: 'NS', dname: `ns1.sub.${corp.zone}` });
    await addRecord(sue, corp.id, { owner: 'sub', type: 'DS', key_tag: 12345, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) });
    expect(rulesOf(await sue.post('/zone_record', { zid: corp.id, owner: 'ns2.sub', type: 'A', address: '192.0.2.54' }))).toEqual(['child_zone']);
    // A record moved into the child by a change is refused too; outside it, the parent is as before.
    const www = await addRecord(sue, corp.id, { owner: 'www', type: 'TXT', data: 'parent' });
    expect(rulesOf(await sue.put(`/zone_record/${www.id}`, { owner: 'www.sub' }))).toEqual(['child_zone']);
    for (const [kind, port] of ports) {
      await eventually(`www TXT on ${kind}`, async () => (await dig(port, `www.${corp.zone}`, 'TXT')).join() === '"parent"');
      expect([kind, await dig(port, `_acme-challenge.sub.${corp.zone}`, 'TXT')]).toEqual([kind, ['"child-token"']]);
    }
  });

  test('a PowerDNS API token for the parent cannot write into the child ({"error"} 422); one for the child can', async () => {
    const tokenFor = async (zone: Json) =>
      expectStatus(await sue.post(`/user/${sueId}/tokens`, { name: `for ${zone.zone}`, zones: [zone.id] }), 201).body.api_token.token as string;
    const patch = async (zone: Json, key: string, name: string, content: string) => {
      const res = await fetch(`${server.url}/api/v1/servers/localhost/zones/${zone.zone as string}`, {
        method: 'PATCH', headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ rrsets: [{ name, type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: `"${content}"`, disabled: false }] }] }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const parentKey = await tokenFor(corp);
    const refused = await patch(corp, parentKey, `_acme-challenge.sub.${corp.zone}`, 'attacker');
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: expect.stringContaining(`lies in the zone ${sub.zone}`) });
    expect(Object.keys(refused.body)).toEqual(['error']);
    expect((await patch(corp, parentKey, `_acme-challenge.${corp.zone}`, 'parent-ok')).status).toBe(204);
    expect((await patch(sub, await tokenFor(sub), `_acme-challenge.${sub.zone}`, 'child-new')).status).toBe(204);
    for (const [kind, port] of ports) {
      await eventually(`the child's new token on ${kind}`, async () => (await dig(port, `_acme-challenge.sub.${corp.zone}`, 'TXT')).join() === '"child-new"');
      await eventually(`the parent's token on ${kind}`, async () => (await dig(port, `_acme-challenge.${corp.zone}`, 'TXT')).join() === '"parent-ok"');
    }
  });

  test('a zone file of a parent refuses names of a child zone, the delegation aside', async () => {
    const base = uniqueZone('pf');
    await zoneOf(sue, `sub.${base}`);
    const head = `$ORIGIN ${base}\n$TTL 3600\n@ SOA ns1.tenancy-pdns.test. hostmaster.example.com. 1 3600 600 86400 3600\n@ NS ns1.tenancy-pdns.test.\n`;
    const importFile = (text: string) => sue.request('POST', `/zone/import?zone=${base}`, { raw: text, headers: { 'content-type': 'text/dns' } });
    const bad = await importFile(`${head}www A 192.0.2.1\nwww.sub A 192.0.2.66\n`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ line: 6, message: expect.stringContaining(`lies in the zone sub.${base}`) }]);
    // Glue before the NS that names it is fine: the file is judged whole.
    const good = await importFile(`${head}ns1.sub A 192.0.2.53\nsub NS ns1.sub\nwww A 192.0.2.1\n`);
    expect(good.status).toBe(201);
  });
});
