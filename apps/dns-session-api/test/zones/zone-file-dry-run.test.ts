// POST /zone/import?dry_run=true: the console's preview before an import is applied (issue 42). Everything a real
// import checks is checked, and nothing is written.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, uniqueZone } from './dns-client';

let server: TestServer;
let alice: CookieClient;

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  await server.seedUser({ group: 'dryrun-acme', username: 'alice' });
  alice = await server.login('alice@dryrun-acme');
});
afterAll(() => server?.close());

const file = (extra = '') =>
  `$TTL 3600\n@ SOA ns1.example.net. hostmaster.example.com. 2026112601 86400 7200 1209600 3600\n@ NS ns1.example.net.\nwww A 192.0.2.10\n@ MX 10 mail\nmail A 192.0.2.25\n${extra}`;

describe('POST /zone/import?dry_run=true', () => {
  test('answers what would be created, and writes nothing', async () => {
    const name = uniqueZone('dry');
    const res = expectStatus(await alice.post('/zone/import?dry_run=true', { zone: name, zonefile: file() }), 200);
    expect(res.body.zone).toMatchObject({ zone: name, serial: 2026112601, ttl: 3600 });
    expect(res.body.zone.id).toBeUndefined();
    expect(res.body.records).toBe(4);
    expect(res.body.by_type).toEqual({ NS: 1, A: 2, MX: 1 });
    expect(res.body.preview).toContainEqual({ line: 4, owner: `www.${name}`, type: 'A', ttl: 3600, address: '192.0.2.10' });
    expect(res.body.meta.msg).toBe('dry run: nothing was imported');
    const listed = expectStatus(await alice.get(`/zone?zone=${name}`), 200);
    expect(listed.body.zone).toEqual([]);
    // The same file then imports for real.
    const imported = expectStatus(await alice.post('/zone/import', { zone: name, zonefile: file() }), 201);
    expect(imported.body.records).toBe(4);
  });

  test('reports bad lines exactly as the import does', async () => {
    const res = expectStatus(await alice.post('/zone/import?dry_run=true', { zone: uniqueZone('drybad'), zonefile: file('bad A 192.0.2.300\n') }), 400);
    expect(res.body.errors).toEqual([{ line: 7, message: expect.stringContaining('192.0.2.300') }]);
  });

  test('a zone that exists is the same 409, and a text/dns body takes dry_run too', async () => {
    const name = uniqueZone('drydup');
    expectStatus(await alice.post('/zone/import', { zone: name, zonefile: file() }), 201);
    expectStatus(await alice.post('/zone/import?dry_run=true', { zone: name, zonefile: file() }), 409);
    const other = uniqueZone('drytext');
    const res = expectStatus(await alice.request('POST', `/zone/import?zone=${other}&dry_run=true`, { raw: file(), headers: { 'content-type': 'text/dns' } }), 200);
    expect(res.body.records).toBe(4);
    expect(expectStatus(await alice.get(`/zone?zone=${other}`), 200).body.zone).toEqual([]);
  });
});
