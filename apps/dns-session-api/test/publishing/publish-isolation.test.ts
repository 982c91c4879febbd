// Publishing isolation (issue 38), against a real PowerDNS (behind an HTTP gate the test holds for one zone) and a
// real BIND (loading what Keyzone writes, asked through rndc whether it did): a zone whose publish hangs holds back
// no other zone on the same or another nameserver, and no database transaction stays open meanwhile; a PowerDNS-API
// PATCH waits only for its own zone; PowerDNS is sent only the RRsets that changed, and the whole zone when it lacks
// it or its serial is behind; a zone BIND refuses to load is named by the status route.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { CookieClient } from '../helpers/client';
import { HttpGate, type GateRequest } from '../helpers/http-gate';
import { dig, eventually, preparePowerDns, startBind, type Bind, type PowerDns } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, type Json } from '../zones/dns-client';

let dir: string;
let pdns: PowerDns;
let gate: HttpGate;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
let aliceId: number;
let onPowerDns: Json;
let onBind: Json;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kz-publish-isolation-'));
  pdns = await preparePowerDns(path.join(dir, 'pdns'));
  await pdns.start();
  gate = new HttpGate(pdns.apiUrl);
  const gateUrl = await gate.listen();
  // BIND refuses to load a zone with a TTL over a day: how the test makes it refuse one.
  bind = await startBind(path.join(dir, 'bind'), 'max-zone-ttl 86400;');
  server = await startTestServer({
    kind: 'postgres',
    publish: {
      enabled: true, pollSeconds: 0.2, timeoutSeconds: 3, maxRetrySeconds: 1,
      powerdns: { 'ns1.gated.test.': { url: gateUrl, apiKey: pdns.apiKey, serverId: 'localhost' } },
      zoneFiles: { directory: bind.zonesDir, includeFile: bind.includeFile, reloadCommand: bind.reloadCommand, checkCommand: bind.checkCommand },
    },
  });
  server.deps.publisher?.start();
  ({ userId: aliceId } = await server.seedUser({ group: 'Isolation', username: 'alice', isAdmin: true }));
  alice = await server.login('alice@Isolation');
  onPowerDns = expectStatus(await alice.post('/nameserver', { name: 'ns1.gated.test.', address: '192.0.2.53', export: { type: 'powerdns' } }), 201).body.nameserver;
  onBind = expectStatus(await alice.post('/nameserver', { name: 'ns2.bind.test.', address: '192.0.2.54', export: { type: 'bind' } }), 201).body.nameserver;
}, 120_000);

afterAll(async () => {
  gate?.release();
  await server?.deps.publisher?.stop();
  await server?.close();
  await gate?.close();
  await pdns?.stop();
  await bind?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const answers = async (port: number, name: string, type: string, expected: string[]) => JSON.stringify(await dig(port, name, type)) === JSON.stringify(expected);
const served = (port: number, name: string, type: string, expected: string[]) =>
  eventually(`${name} ${type} = ${expected.join(', ')} on port ${port}`, () => answers(port, name, type, expected));

async function zoneWith(name: string, nameserver: Json, records = 0): Promise<Json> {
  const zone = expectStatus(await alice.post('/zone', { zone: name, mailaddr: `hostmaster@${name}`, nameservers: [nameserver.id] }), 201).body.zone;
  for (let i = 0; i < records; i++) await addRecord(alice, zone.id, { owner: `h${i}`, type: 'A', ttl: 300, address: `192.0.2.${i + 1}` });
  const port = nameserver.id === onPowerDns.id ? pdns.dnsPort : bind.dnsPort;
  await served(port, records > 0 ? `h${records - 1}.${name}` : name, records > 0 ? 'A' : 'NS', records > 0 ? [`192.0.2.${records}`] : [nameserver.name]);
  return zone;
}

/** The RRsets ("<name> <type> <changetype>") of the PATCHes PowerDNS got for a zone since `from`. */
const patchedSince = (from: number, zone: string) =>
  gate.requests.slice(from)
    .filter((r) => r.method === 'PATCH' && r.url.endsWith(`/zones/${zone}`))
    .flatMap((r) => ((r.body as { rrsets: Array<{ name: string; type: string; changetype: string }> }).rrsets).map((s) => `${s.name} ${s.type} ${s.changetype}`))
    .sort();
const wholeZoneReads = (from: number, zone: string) => gate.requests.slice(from).filter((r: GateRequest) => r.method === 'GET' && r.url.includes(`/zones/${zone}?rrsets=true`));

// A short transaction is idle between its statements for an instant; one held across the hanging call would have
// been idle since before the hang began, so only those older than a second count.
const idleInTransactionForASecond = async () => {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'
      and state_change < clock_timestamp() - interval '1 second'`.execute(server.deps.db);
  return Number(rows[0]!.n);
};

it('a zone whose publish hangs holds back no other zone, on its nameserver or another, and holds no transaction open', async () => {
  const slow = await zoneWith('slow.example.', onPowerDns);
  const fast = await zoneWith('fast.example.', onPowerDns);
  const other = await zoneWith('other.example.', onBind);

  // PowerDNS now hangs on every call about slow.example.: its publish is stuck in the middle of a call.
  gate.hold((r) => r.url.includes('slow.example.'));
  await addRecord(alice, slow.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  await eventually('the slow zone\'s publish to reach PowerDNS and hang', async () => gate.waiting > 0);
  const hungAt = Date.now();

  // The same PowerDNS, another zone; and BIND.
  await addRecord(alice, fast.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.20' });
  await addRecord(alice, other.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.30' });
  await served(pdns.dnsPort, 'www.fast.example.', 'A', ['192.0.2.20']);
  await served(bind.dnsPort, 'www.other.example.', 'A', ['192.0.2.30']);

  // While the call hangs, no connection of the service sits in an open transaction.
  expect(gate.waiting).toBeGreaterThan(0);
  await eventually('the call to have hung for over a second', async () => Date.now() - hungAt > 1500);
  try {
    expect(await idleInTransactionForASecond()).toBe(0);
  } catch (failure) {
    gate.release();
    throw failure;
  }

  // A PowerDNS-API PATCH of fast.example. answers once its own change is out, whatever slow.example. does.
  const token = expectStatus(await alice.post(`/user/${aliceId}/tokens`, { name: 'acme', zones: [fast.id] }), 201).body.api_token.token as string;
  const patched = await fetch(`${server.url}/api/v1/servers/localhost/zones/fast.example.`, {
    method: 'PATCH', headers: { 'x-api-key': token, 'content-type': 'application/json' },
    body: JSON.stringify({ rrsets: [{ name: '_acme-challenge.fast.example.', type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: '"token-1"', disabled: false }] }] }),
  });
  expect(patched.status).toBe(204);
  expect(await dig(pdns.dnsPort, '_acme-challenge.fast.example.', 'TXT')).toEqual(['"token-1"']);

  expect(await dig(pdns.dnsPort, 'www.slow.example.', 'A')).toEqual([]);
  gate.release();
  await served(pdns.dnsPort, 'www.slow.example.', 'A', ['192.0.2.10']);
}, 120_000);

it('PowerDNS is sent only the RRsets a change touched (and the SOA), not the zone', async () => {
  const zone = await zoneWith('incremental.example.', onPowerDns, 12);
  let from = gate.requests.length;
  const added = await addRecord(alice, zone.id, { owner: 'new', type: 'A', ttl: 300, address: '192.0.2.99' });
  await served(pdns.dnsPort, 'new.incremental.example.', 'A', ['192.0.2.99']);
  await eventually('the job to be done', async () => (await alice.get(`/nameserver/${onPowerDns.id}/status`)).body.status.queued === 0);
  expect(patchedSince(from, 'incremental.example.')).toEqual(['incremental.example. SOA REPLACE', 'new.incremental.example. A REPLACE']);
  expect(wholeZoneReads(from, 'incremental.example.')).toEqual([]);

  from = gate.requests.length;
  expectStatus(await alice.delete(`/zone_record/${added.id}`), 200);
  await served(pdns.dnsPort, 'new.incremental.example.', 'A', []);
  await eventually('the job to be done', async () => (await alice.get(`/nameserver/${onPowerDns.id}/status`)).body.status.queued === 0);
  expect(patchedSince(from, 'incremental.example.')).toEqual(['incremental.example. SOA REPLACE', 'new.incremental.example. A DELETE']);
  expect(await dig(pdns.dnsPort, 'h3.incremental.example.', 'A')).toEqual(['192.0.2.4']);
}, 120_000);

it('the whole zone goes to PowerDNS again when it lacks the zone or its serial is behind', async () => {
  const zone = await zoneWith('resync.example.', onPowerDns, 5);
  const direct = (method: string, body?: unknown) => fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/resync.example.`, {
    method, headers: { 'x-api-key': pdns.apiKey, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
  });

  // Wiped behind Keyzone's back.
  expect((await direct('DELETE')).status).toBe(204);
  await addRecord(alice, zone.id, { owner: 'after-wipe', type: 'A', ttl: 300, address: '192.0.2.50' });
  await served(pdns.dnsPort, 'after-wipe.resync.example.', 'A', ['192.0.2.50']);
  await served(pdns.dnsPort, 'h2.resync.example.', 'A', ['192.0.2.3']);

  // Rolled back to an older serial, losing an RRset on the way (a restored backup).
  await eventually('the job to be done', async () => (await alice.get(`/nameserver/${onPowerDns.id}/status`)).body.status.queued === 0);
  expect((await direct('PATCH', { rrsets: [
    { name: 'resync.example.', type: 'SOA', ttl: 3600, changetype: 'REPLACE', records: [{ content: 'ns1.gated.test. hostmaster.resync.example. 1 3600 900 604800 3600', disabled: false }] },
    { name: 'h1.resync.example.', type: 'A', changetype: 'DELETE' },
  ] })).status).toBe(204);
  await served(pdns.dnsPort, 'h1.resync.example.', 'A', []);
  const from = gate.requests.length;
  await addRecord(alice, zone.id, { owner: 'after-rollback', type: 'A', ttl: 300, address: '192.0.2.51' });
  await served(pdns.dnsPort, 'after-rollback.resync.example.', 'A', ['192.0.2.51']);
  await served(pdns.dnsPort, 'h1.resync.example.', 'A', ['192.0.2.2']);
  expect(wholeZoneReads(from, 'resync.example.')).toHaveLength(1);
  const serial = String((await alice.get(`/zone/${zone.id}`)).body.zone.serial);
  expect((await dig(pdns.dnsPort, 'resync.example.', 'SOA'))[0]).toContain(` ${serial} `);
}, 120_000);

it('a zone BIND refuses to load is named by the status route, and clears once BIND loads it', async () => {
  const zone = await zoneWith('refused.example.', onBind, 5);
  // Past BIND's max-zone-ttl: it keeps serving the zone it had, and says so only in its log and through rndc.
  const long = await addRecord(alice, zone.id, { owner: 'long', type: 'A', ttl: 172_800, address: '192.0.2.100' });
  let status: Json = {};
  await eventually('the status route to name the zone', async () => {
    status = expectStatus(await alice.get(`/nameserver/${onBind.id}/status`), 200).body.status;
    return status.failing_zones.some((z: Json) => z.zone === 'refused.example.');
  });
  expect(status.failing_zones.find((z: Json) => z.zone === 'refused.example.')).toMatchObject({
    zone_id: zone.id, last_error: expect.stringContaining('did not load refused.example.'),
  });
  expect(await dig(bind.dnsPort, 'long.refused.example.', 'A')).toEqual([]);

  expectStatus(await alice.delete(`/zone_record/${long.id}`), 200);
  await eventually('the zone to load and leave the failing list', async () => {
    server.clock.advance(5); // past the retry backoff
    server.deps.publisher!.kick();
    return !(await alice.get(`/nameserver/${onBind.id}/status`)).body.status.failing_zones.some((z: Json) => z.zone === 'refused.example.');
  });
  const serial = String((await alice.get(`/zone/${zone.id}`)).body.zone.serial);
  expect((await dig(bind.dnsPort, 'refused.example.', 'SOA'))[0]).toContain(` ${serial} `);
}, 120_000);

it('a zone claimed by an instance that died is published once its lease runs out, and not before', async () => {
  const zone = await zoneWith('orphaned.example.', onBind);
  const { db } = server.deps;
  const publisher = server.deps.publisher!;
  const jobs = () => db.selectFrom('dns.publish_jobs').select(['id', 'lease_until']).where('zone_id', '=', zone.id).execute();
  // While this instance's publisher is stopped, a change is queued, and another instance claims it and dies: its
  // lease (a minute from now) still holds the zone.
  await publisher.stop();
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.70' });
  const [job] = await jobs();
  await db.updateTable('dns.publish_jobs').set({ lease_until: new Date(server.clock.now().getTime() + 60_000) }).where('id', '=', job!.id).execute();
  publisher.start();
  await publisher.idle();
  expect(await dig(bind.dnsPort, 'www.orphaned.example.', 'A')).toEqual([]);
  expect(await jobs()).toHaveLength(1);

  server.clock.advance(61);
  await served(bind.dnsPort, 'www.orphaned.example.', 'A', ['192.0.2.70']);
  await eventually('the job to be done', async () => (await jobs()).length === 0);
}, 120_000);
