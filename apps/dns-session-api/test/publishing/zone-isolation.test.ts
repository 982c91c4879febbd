// One zone cannot stop publishing for a nameserver (issue 27): an RFC 2317 name with `/` becomes one file (not a
// directory), a zone whose publishing fails holds back only its own later changes, and the status route names it.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { eventually } from '../helpers/nameservers';
import { addRecord, expectStatus } from '../zones/dns-client';

let dir: string;
let server: TestServer;
let alice: CookieClient;
let nsId: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kz-isolation-'));
  server = await startTestServer({
    publish: {
      enabled: true, pollSeconds: 3600, timeoutSeconds: 5, maxRetrySeconds: 1,
      powerdns: {},
      // The "nameserver" refuses to reload one zone.
      zoneFiles: { directory: path.join(dir, 'zones'), includeFile: 'keyzone-zones.conf', reloadCommand: ['sh', '-c', 'test "$0" != "broken.example"', '{zone}'] },
    },
  });
  await server.seedUser({ group: 'Isolated', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Isolated');
  nsId = expectStatus(await alice.post('/nameserver', { name: 'ns1.files.test.', address: '192.0.2.1', export: { type: 'bind' } }), 201).body.nameserver.id;
});
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const zonesDir = () => path.join(dir, 'zones');
const fileText = (name: string) => (existsSync(path.join(zonesDir(), name)) ? readFileSync(path.join(zonesDir(), name), 'utf8') : '');
/** Runs the publisher (each write already kicked it) until `done` holds. */
const publishUntil = (what: string, done: () => boolean | Promise<boolean>) =>
  eventually(what, async () => {
    server.deps.publisher!.kick();
    await server.deps.publisher!.idle();
    return done();
  });

test('an RFC 2317 zone (0/26.2.0.192.in-addr.arpa.) is one file in the directory, named in the include files', async () => {
  const zone = expectStatus(await alice.post('/zone', { zone: '0/26.2.0.192.in-addr.arpa.', mailaddr: 'hostmaster.example.com.', nameservers: [nsId] }), 201).body.zone;
  await addRecord(alice, zone.id, { owner: '1', type: 'PTR', dname: 'host1.example.com.' });
  await publishUntil('the PTR record in the zone file', () => fileText('0%2f26.2.0.192.in-addr.arpa.zone').includes('host1.example.com.'));
  expect(readdirSync(zonesDir())).toContain('0%2f26.2.0.192.in-addr.arpa.zone');
  const include = readFileSync(path.join(zonesDir(), 'keyzone-zones.conf'), 'utf8');
  expect(include).toContain(`zone "0/26.2.0.192.in-addr.arpa" { type primary; file "${path.join(zonesDir(), '0%2f26.2.0.192.in-addr.arpa.zone')}"; };`);
  const status = expectStatus(await alice.get(`/nameserver/${nsId}/status`), 200).body.status;
  expect(status).toMatchObject({ queued: 0, failing_zones: [] });
});

test('a zone that fails to publish holds back only itself, and the status route names it with its error', async () => {
  const broken = expectStatus(await alice.post('/zone', { zone: 'broken.example.', mailaddr: 'hostmaster.example.com.', nameservers: [nsId] }), 201).body.zone;
  const failing = async () => (await server.deps.db.selectFrom('dns.publish_jobs').select('attempts').where('zone_id', '=', broken.id).executeTakeFirst())?.attempts ?? 0;
  await publishUntil('the broken zone to fail', async () => (await failing()) > 0);
  const good = expectStatus(await alice.post('/zone', { zone: 'good.example.', mailaddr: 'hostmaster.example.com.', nameservers: [nsId] }), 201).body.zone;
  await addRecord(alice, good.id, { owner: 'www', type: 'A', address: '192.0.2.80' });
  // The broken zone waits for its retry (its job came first), yet good.example goes out.
  await publishUntil('good.example with its record', () => fileText('good.example.zone').includes('192.0.2.80'));
  const status = expectStatus(await alice.get(`/nameserver/${nsId}/status`), 200).body.status;
  expect(status.failing_zones).toEqual([
    expect.objectContaining({ zone_id: broken.id, zone: 'broken.example.', attempts: expect.any(Number), last_error: expect.stringContaining('failed') }),
  ]);
  expect(status.queued).toBe(1);
});
