// The PowerDNS-compatible API with scoped API tokens (issue 32): tokens created, listed and revoked through the
// Keyzone API; /api/v1 answering only to a token in force, narrowed to its zones, names and types; PATCHes applied
// as Keyzone changes (zone rules, serial, history naming the token), atomically.
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from './dns-client';

let server: TestServer;
let alice: CookieClient;
let bob: CookieClient;
let aliceId: number;
let bobId: number;
let zone: Json;
let other: Json;

beforeAll(async () => {
  server = await startTestServer();
  ({ userId: aliceId } = await server.seedUser({ group: 'Tokens', username: 'alice', isAdmin: true }));
  ({ userId: bobId } = await server.seedUser({ group: 'Elsewhere', username: 'bob' }));
  alice = await server.login('alice@Tokens');
  bob = await server.login('bob@Elsewhere');
  const ns = await newNameserver(alice, { name: 'ns1.tokens.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  other = await newZone(alice, { nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
}, 60_000);
afterAll(async () => server?.close());

async function token(client: CookieClient, userId: number, body: Record<string, unknown>): Promise<string> {
  return expectStatus(await client.post(`/user/${userId}/tokens`, body), 201).body.api_token.token as string;
}

async function pdns(method: string, path: string, key: string | undefined, body?: unknown, header: 'x-api-key' | 'bearer' = 'x-api-key') {
  const headers: Record<string, string> = {};
  if (key) headers[header === 'x-api-key' ? 'x-api-key' : 'authorization'] = header === 'x-api-key' ? key : `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const zonePath = (z: Json) => `/api/v1/servers/localhost/zones/${z.zone as string}`;
const txt = (name: string, content: string, ttl = 60) => ({ name, type: 'TXT', ttl, changetype: 'REPLACE', records: [{ content, disabled: false }] });

describe('API tokens', () => {
  it('are created (shown once), listed without the secret, and revoked by their owner or an admin', async () => {
    const created = expectStatus(await alice.post(`/user/${aliceId}/tokens`, { name: 'ci', types: ['txt'], names: ['_acme-challenge.*'] }), 201).body.api_token;
    expect(created).toMatchObject({ name: 'ci', user_id: aliceId, zones: null, names: ['_acme-challenge.*'], types: ['TXT'], token: expect.stringMatching(/^kzdns_/) });
    const listed = expectStatus(await alice.get(`/user/${aliceId}/tokens`), 200).body.api_tokens;
    expect(listed.find((t: Json) => t.id === created.id)).not.toHaveProperty('token');
    expect((await pdns('GET', '/api', created.token)).status).toBe(200);
    expectStatus(await alice.delete(`/user/${aliceId}/tokens/${created.id}`), 200);
    expect((await pdns('GET', '/api', created.token)).status).toBe(401);
    expectStatus(await alice.delete(`/user/${aliceId}/tokens/${created.id}`), 404);

    // Bob (not an admin, another group) cannot see or make Alice's; Alice (admin over her group) cannot reach Bob's.
    expectStatus(await bob.get(`/user/${aliceId}/tokens`), 403);
    expectStatus(await bob.post(`/user/${aliceId}/tokens`, { name: 'x' }), 403);
    expectStatus(await alice.get(`/user/${bobId}/tokens`), 403);
    // Bob cannot scope his token to Alice's zone.
    expectStatus(await bob.post(`/user/${bobId}/tokens`, { name: 'x', zones: [zone.id] }), 403);
  });

  it('refuse bad scopes and past expiries with 400s', async () => {
    for (const body of [
      { name: '' }, { name: 'x', types: ['NOPE'] }, { name: 'x', names: ['bad name!'] }, { name: 'x', zones: [999999] },
      { name: 'x', expires_at: '2000-01-01T00:00:00Z' }, { name: 'x', extra: 1 },
    ]) {
      expectStatus(await alice.post(`/user/${aliceId}/tokens`, body), 400);
    }
  });

  it('an expired token stops working', async () => {
    const expiring = await token(alice, aliceId, { name: 'short', expires_at: new Date(server.clock.now().getTime() + 60_000).toISOString() });
    expect((await pdns('GET', '/api/v1/servers', expiring)).status).toBe(200);
    server.clock.advance(61);
    expect((await pdns('GET', '/api/v1/servers', expiring)).status).toBe(401);
  });
});

describe('/api/v1 with a token', () => {
  it('answers 401 to no token, a wrong one, or an auth-server JWT, in PowerDNS\'s error shape', async () => {
    for (const key of [undefined, 'kzdns_nope', 'eyJhbGciOiJIUzI1NiJ9.e30.x']) {
      const res = await pdns('GET', '/api/v1/servers/localhost/zones', key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.stringMatching(/^Unauthorized/) });
    }
  });

  it('lists and reads the zones in scope, as PowerDNS does (X-API-Key or Bearer)', async () => {
    const all = await token(alice, aliceId, { name: 'all' });
    expect((await pdns('GET', '/api', all)).body).toEqual([{ url: '/api/v1', version: 1 }]);
    const zones = (await pdns('GET', '/api/v1/servers/localhost/zones', all, undefined, 'bearer')).body as Json[];
    expect(zones.map((z) => z.name)).toEqual(expect.arrayContaining([zone.zone, other.zone]));
    expect(zones[0]).toMatchObject({ kind: 'Native', url: expect.stringMatching(/^\/api\/v1\/servers\/localhost\/zones\//), serial: expect.any(Number) });
    const one = await pdns('GET', zonePath(zone), all);
    expect(one.status).toBe(200);
    expect(one.body.rrsets).toEqual(expect.arrayContaining([
      { name: zone.zone, type: 'SOA', ttl: expect.any(Number), records: [expect.objectContaining({ disabled: false })], comments: [] },
      { name: zone.zone, type: 'NS', ttl: expect.any(Number), records: [{ content: 'ns1.tokens.test.', disabled: false }], comments: [] },
      { name: `www.${zone.zone as string}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.10', disabled: false }], comments: [] },
    ]));
    expect((await pdns('GET', `/api/v1/servers/localhost/zones?zone=${zone.zone as string}`, all)).body.map((z: Json) => z.name)).toEqual([zone.zone]);
    expect((await pdns('GET', '/api/v1/servers/localhost/zones/nowhere.example.', all)).status).toBe(404);
    // Bob's token sees none of Alice's zones.
    const bobs = await token(bob, bobId, { name: 'bob' });
    expect((await pdns('GET', '/api/v1/servers/localhost/zones', bobs)).body).toEqual([]);
    expect((await pdns('GET', zonePath(zone), bobs)).status).toBe(403);
  });

  it('PATCH REPLACE and DELETE: Keyzone changes with serial, history naming the token, and the zone rules', async () => {
    const key = await token(alice, aliceId, { name: 'deployer', zones: [zone.id] });
    const before = (await alice.get(`/zone/${zone.id}`)).body.zone.serial as number;
    const patched = await pdns('PATCH', zonePath(zone), key, {
      rrsets: [
        { name: `api.${zone.zone as string}`, type: 'A', ttl: 120, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }, { content: '192.0.2.2', disabled: false }] },
        txt(`api.${zone.zone as string}`, '"hello world"'),
      ],
    });
    expect(patched.status).toBe(204);
    const records = (await alice.get(`/zone/${zone.id}/records?limit=100`)).body.zone_record as Json[];
    expect(records.filter((r) => r.owner === `api.${zone.zone as string}`).map((r) => [r.type, r.ttl])).toEqual(expect.arrayContaining([['A', 120], ['A', 120], ['TXT', 60]]));
    const after = (await alice.get(`/zone/${zone.id}`)).body.zone.serial as number;
    expect(after).toBeGreaterThan(before);
    const history = (await alice.get(`/zone/${zone.id}/history`)).body.history as Json[];
    const made = history.filter((h) => h.object === 'zone_record' && h.action === 'create' && String(h.after?.owner).startsWith('api.'));
    expect(made).toHaveLength(3);
    for (const entry of made) expect(entry).toMatchObject({ user: { id: aliceId }, api_token: { name: 'deployer' } });
    expect(history.find((h) => h.action === 'create' && h.after?.owner === `www.${zone.zone as string}`)).toMatchObject({ api_token: null });

    // REPLACE with one address keeps it and drops the other; DELETE removes the set.
    expect((await pdns('PATCH', zonePath(zone), key, { rrsets: [{ name: `api.${zone.zone as string}`, type: 'A', ttl: 120, changetype: 'REPLACE', records: [{ content: '192.0.2.2' }] }] })).status).toBe(204);
    expect((await pdns('PATCH', zonePath(zone), key, { rrsets: [{ name: `api.${zone.zone as string}`, type: 'TXT', changetype: 'DELETE' }] })).status).toBe(204);
    const rrsets = (await pdns('GET', zonePath(zone), key)).body.rrsets as Json[];
    expect(rrsets.filter((s) => s.name === `api.${zone.zone as string}`)).toEqual([
      { name: `api.${zone.zone as string}`, type: 'A', ttl: 120, records: [{ content: '192.0.2.2', disabled: false }], comments: [] },
    ]);

    // A rule broken (a CNAME beside other data) is a 422 and nothing of the request is kept.
    const serial = (await alice.get(`/zone/${zone.id}`)).body.zone.serial as number;
    const broken = await pdns('PATCH', zonePath(zone), key, {
      rrsets: [txt(`ok.${zone.zone as string}`, '"fine"'), { name: `api.${zone.zone as string}`, type: 'CNAME', ttl: 60, changetype: 'REPLACE', records: [{ content: 'elsewhere.example.' }] }],
    });
    expect(broken.status).toBe(422);
    expect((await alice.get(`/zone/${zone.id}`)).body.zone.serial).toBe(serial);
    expect(((await pdns('GET', zonePath(zone), key)).body.rrsets as Json[]).some((s) => s.name === `ok.${zone.zone as string}`)).toBe(false);
  });

  it('a token scoped to _acme-challenge TXT of one zone can do that and nothing else', async () => {
    const acme = await token(alice, aliceId, { name: 'lego', zones: [zone.id], names: ['_acme-challenge.*'], types: ['TXT'] });
    const name = `_acme-challenge.www.${zone.zone as string}`;
    expect((await pdns('PATCH', zonePath(zone), acme, { rrsets: [txt(name, '"token-value"')] })).status).toBe(204);
    const visible = (await pdns('GET', zonePath(zone), acme)).body.rrsets as Json[];
    expect(visible).toEqual([{ name, type: 'TXT', ttl: 60, records: [{ content: '"token-value"', disabled: false }], comments: [] }]);
    const anA = await pdns('PATCH', zonePath(zone), acme, { rrsets: [{ name, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: '192.0.2.9' }] }] });
    expect(anA.status).toBe(403);
    expect((await pdns('PATCH', zonePath(zone), acme, { rrsets: [txt(`www.${zone.zone as string}`, '"x"')] })).status).toBe(403);
    expect((await pdns('PATCH', zonePath(other), acme, { rrsets: [txt(`_acme-challenge.${other.zone as string}`, '"x"')] })).status).toBe(403);
    expect((await pdns('GET', '/api/v1/servers/localhost/zones', acme)).body.map((z: Json) => z.name)).toEqual([zone.zone]);
  });

  it('refuses what Keyzone keeps itself, and malformed requests, with 4xx in PowerDNS\'s shape', async () => {
    const key = await token(alice, aliceId, { name: 'edge', zones: [zone.id] });
    const cases: Array<[unknown, number]> = [
      [{ rrsets: [{ name: zone.zone, type: 'SOA', ttl: 60, changetype: 'REPLACE', records: [{ content: 'a. b. 1 2 3 4 5' }] }] }, 422],
      [{ rrsets: [{ name: zone.zone, type: 'NS', ttl: 60, changetype: 'REPLACE', records: [{ content: 'ns9.example.' }] }] }, 422],
      [{ rrsets: [{ name: 'www.elsewhere.example.', type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }] }, 422],
      [{ rrsets: [{ name: `x.${zone.zone as string}`, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: 'not-an-address' }] }] }, 422],
      [{ rrsets: [{ name: `x.${zone.zone as string}`, type: 'A', changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }] }, 422],
      [{ rrsets: [{ name: `x.${zone.zone as string}`, type: 'A', ttl: 60, changetype: 'EDIT', records: [] }] }, 422],
      [{ rrsets: [{ name: `x.${zone.zone as string}`, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: true }] }] }, 422],
      [{ rrsets: [txt(`x.${zone.zone as string}`, '"a\u0000b"')] }, 422],
      [{ rrsets: 'nope' }, 422],
      ['{not json', 400],
    ];
    for (const [body, status] of cases) {
      const res = await pdns('PATCH', zonePath(zone), key, body);
      expect([JSON.stringify(body).slice(0, 60), res.status]).toEqual([JSON.stringify(body).slice(0, 60), status]);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await pdns('POST', '/api/v1/servers/localhost/zones', key, { name: 'new.example.' })).status).toBe(405);
    expect((await pdns('PUT', `${zonePath(zone)}/notify`, key)).body).toEqual({ result: 'Notification queued' });
  });
});
