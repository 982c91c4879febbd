// A secondary zone on Keyzone's own nameservers (issue 44): an existing zone made a secondary of an outside BIND primary
// (PUT /zone/<id>/secondary) takes the primary's records and serial, which the publisher gives to Keyzone's PowerDNS
// and BIND; when the primary has been silent past its SOA expire the zone is withdrawn from both (a secondary ceases
// serving an expired zone, RFC 1034 §4.3.5), and it comes back once the primary answers again.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, startBind, type Bind } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { expectStatus, type Json } from '../zones/dns-client';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

const run = promisify(execFile);
jest.setTimeout(240_000);

const ZONE = 'kept.example';
let stand: PublishingStand;
let primary: Bind;
let restarted: ChildProcess | undefined;
let dir: string;
let refresher: SecondaryRefresher;
let admin: CookieClient;

beforeAll(async () => {
  stand = await startPublishingStand('secondary-publish', 'ns1.pdns.test.');
  const { server } = stand;
  await server.seedUser({ group: 'Keep', username: 'root', isAdmin: true });
  admin = await server.login('root@Keep');
  refresher = new SecondaryRefresher({ ...server.deps, config: { ...server.deps.config, dns: { ...server.deps.config.dns, secondaryPollSeconds: 0.2, secondaryMinRefreshSeconds: 1 } } });
  server.deps.secondaries = refresher;
  refresher.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kz-secondary-primary-'));
  primary = await startBind(dir);
  writeFileSync(path.join(dir, 'kept.zone'), [
    '$TTL 3600',
    `@ IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 2030010101 7200 3600 86400 300`,
    `@ IN NS ns1.${ZONE}.`,
    'ns1 IN A 192.0.2.53',
    'www 300 IN A 192.0.2.44',
    '',
  ].join('\n'));
  writeFileSync(path.join(primary.zonesDir, primary.includeFile), `zone "${ZONE}" { type primary; file "${path.join(dir, 'kept.zone')}"; allow-transfer { 127.0.0.1; }; };\n`);
  await run(primary.reloadCommand[0]!, primary.reloadCommand.slice(1));
  await eventually('the primary to load the zone', async () => (await dig(primary.dnsPort, ZONE, 'SOA')).length > 0);
}, 240_000);
afterAll(async () => {
  await refresher?.stop();
  if (restarted && restarted.exitCode === null) await new Promise((resolve) => { restarted!.once('exit', resolve); restarted!.kill('SIGTERM'); });
  await primary?.stop();
  await stand?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const servedBy = async (port: number) => (await dig(port, `www.${ZONE}`, 'A').catch(() => [])).join(',');

it('publishes what the primary holds, withdraws the zone once it expires, and serves it again when the primary is back', async () => {
  const { server, pdns, bind } = stand;
  const ns1 = expectStatus(await admin.post('/nameserver', { name: 'ns1.pdns.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201).body.nameserver as Json;
  const ns2 = expectStatus(await admin.post('/nameserver', { name: 'ns2.bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201).body.nameserver as Json;
  const zone = expectStatus(await admin.post('/zone', { zone: `${ZONE}.`, nameservers: [ns1.id, ns2.id] }), 201).body.zone as Json;
  expectStatus(await admin.post('/zone_record', { zid: zone.id, owner: 'local', type: 'A', address: '192.0.2.7' }), 201);
  expect(expectStatus(await admin.put(`/zone/${zone.id}/secondary`, { address: '127.0.0.1', port: primary.dnsPort }), 200).body.secondary).toMatchObject({ state: 'pending' });

  await eventually('the primary\'s records on PowerDNS and BIND', async () => (await servedBy(pdns.dnsPort)) === '192.0.2.44' && (await servedBy(bind.dnsPort)) === '192.0.2.44', 90_000);
  expect((await admin.get(`/zone/${zone.id}`)).body.zone.serial).toBe(2030010101);
  expect(await dig(pdns.dnsPort, `local.${ZONE}`, 'A')).toEqual([]);
  expect((await dig(bind.dnsPort, ZONE, 'SOA')).join('')).toMatch(/ 2030010101 /);

  await primary.stop();
  server.clock.advance(86_400 + 7200 + 60);
  refresher.kick();
  await eventually('the zone to leave PowerDNS and BIND', async () => (await servedBy(pdns.dnsPort)) === '' && (await servedBy(bind.dnsPort)) === '', 90_000);
  admin = await server.login('root@Keep'); // the session ran out with the time that passed
  expect((await admin.get(`/zone/${zone.id}/secondary`)).body.secondary).toMatchObject({ state: 'expired' });

  restarted = spawn('named', ['-g', '-c', path.join(dir, 'named.conf')], { stdio: 'ignore' });
  await eventually('the primary to answer again', async () => (await dig(primary.dnsPort, ZONE, 'SOA').catch(() => [])).length > 0, 60_000);
  server.clock.advance(3600);
  refresher.kick();
  await eventually('the zone back on PowerDNS and BIND', async () => (await servedBy(pdns.dnsPort)) === '192.0.2.44' && (await servedBy(bind.dnsPort)) === '192.0.2.44', 90_000);
});
