// A zone kept as a secondary of an outside primary (issue 44): BIND is the primary. import-axfr keep_secondary makes
// the first transfer; a change on BIND reaches Keyzone through BIND's NOTIFY (also-notify to Keyzone's listener; the
// SOA refresh is hours and the test clock stands still, so nothing else could make Keyzone look); a NOTIFY from
// another address or key is refused and starts nothing; the records are read-only through the API and UPDATE; with
// BIND down and the clock moved past the SOA expire the zone expires (SERVFAIL, state "expired"), and BIND back on
// the same port brings it back. A TSIG-signed secondary transfers with a stored key and takes NOTIFY signed with it.
// Two claims at once never both get a zone.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as packet from 'dns-packet';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, startBind, type Bind } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectStatus, type Json } from '../zones/dns-client';
import type { Deps } from '../../src/deps';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';
import { signRequest } from '../../src/dns-server/tsig';
import { runImportAxfr } from '../../src/cli/import-axfr';
import { claimSecondaryZones } from '../../src/queries/secondary-zones';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

const run = promisify(execFile);
jest.setTimeout(240_000);

const ZONE = 'second.example';
const SIGNED = 'signed-second.example';
let server: TestServer;
let deps: Deps;
let refresher: SecondaryRefresher;
let listener: DnsListener;
let bind: Bind;
let restarted: ChildProcess | undefined;
let dir: string;
let admin: CookieClient;
let alice: CookieClient;
let key: Json;
/** Another user's key: it verifies at the listener, but it is not the zone's. */
let otherKey: Json;
let zone: Json;

const zoneFile = (serial: number, extra: string[]) => [
  '$TTL 3600',
  `@ IN SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 7200 3600 86400 300`,
  `@ IN NS ns1.${ZONE}.`,
  'ns1 IN A 192.0.2.53',
  ...extra,
  '',
].join('\n');

beforeAll(async () => {
  server = await startTestServer();
  const { userId: adminId } = await server.seedUser({ group: 'Sec2', username: 'root', isAdmin: true });
  await server.seedUser({ group: 'Sec2', username: 'alice' });
  admin = await server.login('root@Sec2');
  alice = await server.login('alice@Sec2');
  key = expectStatus(await admin.post(`/user/${adminId}/tsig-keys`, { name: 'primary.sec2', algorithm: 'hmac-sha256' }), 201).body.tsig_key as Json;
  deps = {
    ...server.deps,
    config: {
      ...server.deps.config,
      dns: { ...server.deps.config.dns, enabled: true, port: 0, secondaryPollSeconds: 0.2, secondaryMinRefreshSeconds: 1 },
    },
  };
  refresher = new SecondaryRefresher(deps);
  deps.secondaries = refresher;
  server.deps.secondaries = refresher;
  refresher.start();
  listener = await startDnsListener(deps);
  dir = mkdtempSync(path.join(os.tmpdir(), 'kz-secondary-'));
  bind = await startBind(dir);
  writeFileSync(path.join(dir, 'second.zone'), zoneFile(2026112601, ['www 300 IN A 192.0.2.10', 'old 300 IN A 192.0.2.11', 'txt IN TXT "first"']));
  writeFileSync(path.join(dir, 'signed.zone'), zoneFile(2026112601, ['www 300 IN A 192.0.2.20']));
  // Keyzone's listener is told of changes (notify explicit: only the also-notify target, which is Keyzone).
  const notifyKeyzone = `notify explicit; also-notify { 127.0.0.1 port ${listener.udpPort!}; };`;
  writeFileSync(path.join(bind.zonesDir, bind.includeFile), [
    `key "primary.sec2" { algorithm hmac-sha256; secret "${key.secret as string}"; };`,
    `zone "${ZONE}" { type primary; file "${path.join(dir, 'second.zone')}"; allow-transfer { 127.0.0.1; }; ${notifyKeyzone} };`,
    `zone "cli-second.example" { type primary; file "${path.join(dir, 'second.zone')}"; allow-transfer { 127.0.0.1; }; notify no; };`,
    `zone "${SIGNED}" { type primary; file "${path.join(dir, 'signed.zone')}"; allow-transfer { key "primary.sec2"; }; notify no; };`,
    '',
  ].join('\n'));
  await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
  await eventually('BIND to load the zones', async () => (await dig(bind.dnsPort, ZONE, 'SOA')).length > 0 && (await dig(bind.dnsPort, SIGNED, 'SOA')).length > 0);
}, 240_000);
afterAll(async () => {
  await stopChild(restarted);
  await bind?.stop();
  await listener?.close();
  await refresher?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const secondaryOf = async (z: Json) => expectStatus(await alice.get(`/zone/${z.id}/secondary`), 200).body.secondary as Json;
const serialOf = async (z: Json) => (await alice.get(`/zone/${z.id}`)).body.zone.serial as number;
const recordsOf = async (z: Json) => ((await alice.get(`/zone/${z.id}/records?limit=100`)).body.zone_record as Json[])
  .map((r) => `${r.owner as string} ${r.type as string} ${r.ttl as number} ${String(r.address ?? r.data ?? r.dname ?? '')}`).sort();

/** dig's status line for a query to Keyzone's listener (NOERROR, SERVFAIL, REFUSED…). */
async function statusAtKeyzone(name: string, type: string): Promise<string> {
  const { stdout } = await run('dig', ['+time=2', '+tries=1', '@127.0.0.1', '-p', String(listener.udpPort!), name, type]).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'no answer';
}

/** A NOTIFY for `name` sent over UDP from `from` (any 127/8 address is this host), optionally signed; the answer's RCODE. */
async function sendNotify(name: string, from: string, signWith?: { name: string; algorithm: string; secret: string }): Promise<number | 'silence'> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, from, () => resolve()));
  try {
    const id = Math.floor(Math.random() * 65536);
    let message = packet.encode({ id, type: 'query', flags: (4 << 11) | packet.AUTHORITATIVE_ANSWER, questions: [{ name, type: 'SOA', class: 'IN' }] });
    if (signWith) {
      message = signRequest(message, { name: signWith.name, algorithm: signWith.algorithm, secret: Buffer.from(signWith.secret, 'base64') }, Math.floor(server.clock.now().getTime() / 1000)).signed;
    }
    const answer = new Promise<Buffer>((resolve) => socket.on('message', (msg) => resolve(msg)));
    socket.send(message, listener.udpPort!, '127.0.0.1');
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([answer, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), 3000); })]);
    clearTimeout(timer);
    if (!result) return 'silence';
    expect(result.readUInt16BE(0)).toBe(id);
    return result.readUInt16BE(2) & 0xf;
  } finally {
    socket.close();
  }
}

describe('a zone kept as a secondary of an outside primary', () => {
  it('is transferred once by import-axfr keep_secondary and reported as current', async () => {
    // An inline key cannot be kept (the refresher needs it stored and sealed); non-administrators cannot point Keyzone anywhere.
    const inline = expectStatus(await admin.post('/zone/import-axfr', {
      zone: ZONE, server: '127.0.0.1', port: bind.dnsPort, keep_secondary: true, key: { name: 'primary.sec2', algorithm: 'hmac-sha256', secret: key.secret },
    }), 400);
    expect(inline.body.message).toMatch(/tsig_key_id/);
    expectStatus(await alice.post('/zone/import-axfr', { zone: ZONE, server: '127.0.0.1', port: bind.dnsPort, keep_secondary: true }), 403);
    const res = expectStatus(await admin.post('/zone/import-axfr', { zone: ZONE, server: '127.0.0.1', port: bind.dnsPort, keep_secondary: true }), 201);
    zone = res.body.zone as Json;
    expect(zone).toMatchObject({ zone: `${ZONE}.`, serial: 2026112601, refresh: 7200, expire: 86400 });
    expect(await secondaryOf(zone)).toMatchObject({
      primary: { address: '127.0.0.1', port: bind.dnsPort, tsig_key_id: null }, state: 'current', primary_serial: 2026112601, refresh: 7200, retry: 3600, expire: 86400,
    });
    expect(await recordsOf(zone)).toEqual(expect.arrayContaining([`old.${ZONE}. A 300 192.0.2.11`, `www.${ZONE}. A 300 192.0.2.10`]));
    expect(await statusAtKeyzone(ZONE, 'SOA')).toBe('NOERROR');
  });

  it('refuses writes to its records and SOA through the API and UPDATE; other zone settings change', async () => {
    const write = expectStatus(await alice.post('/zone_record', { zid: zone.id, owner: 'new', type: 'A', address: '192.0.2.99' }), 409);
    expect(write.body).toMatchObject({ statusCode: 409, reason: 'secondary_zone' });
    expect(write.body.message).toMatch(/secondary of 127\.0\.0\.1.*DELETE \/zone\/\d+\/secondary/);
    const www = ((await alice.get(`/zone/${zone.id}/records?limit=100`)).body.zone_record as Json[]).find((r) => r.owner === `www.${ZONE}.`)!;
    expectStatus(await alice.put(`/zone_record/${www.id}`, { address: '192.0.2.98' }), 409);
    expectStatus(await alice.delete(`/zone_record/${www.id}`), 409);
    expectStatus(await alice.put(`/zone/${zone.id}`, { refresh: 60 }), 409);
    expectStatus(await alice.put(`/zone/${zone.id}`, { description: 'kept from BIND' }), 200);
    expectStatus(await alice.put(`/zone/${zone.id}/secondary`, { address: '127.0.0.1', port: bind.dnsPort }), 403);
    // RFC 2136 UPDATE with a key that reaches the zone: REFUSED, nothing written.
    const { userId } = await server.seedUser({ group: 'Sec2', username: 'updater' });
    const updater = await server.login('updater@Sec2');
    const upd = expectStatus(await updater.post(`/user/${userId}/tsig-keys`, { name: 'upd.sec2', algorithm: 'hmac-sha256', zones: [zone.id] }), 201).body.tsig_key as Json;
    otherKey = upd;
    const out = await new Promise<string>((resolve) => {
      const child = spawn('nsupdate', ['-v', '-y', `hmac-sha256:upd.sec2:${upd.secret as string}`]);
      let text = '';
      child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { text += d.toString(); });
      child.on('close', () => resolve(text));
      child.stdin.end([`server 127.0.0.1 ${listener.tcpPort!}`, `zone ${ZONE}`, `update add nsupdate.${ZONE} 300 A 192.0.2.77`, 'send', ''].join('\n'));
    });
    expect(out).toMatch(/REFUSED/);
    expect((await recordsOf(zone)).some((r) => r.startsWith('nsupdate.'))).toBe(false);
    // The PowerDNS-compatible API with a token for the zone: 409, its error shape.
    const token = expectStatus(await updater.post(`/user/${userId}/tokens`, { name: 'deployer', zones: [zone.id] }), 201).body.api_token.token as string;
    const patched = await fetch(`${server.url}/api/v1/servers/localhost/zones/${ZONE}.`, {
      method: 'PATCH', headers: { 'x-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify({ rrsets: [{ name: `api.${ZONE}.`, type: 'A', ttl: 120, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] }] }),
    });
    expect(patched.status).toBe(409);
    expect(((await patched.json()) as Json).error).toMatch(/is a secondary of 127\.0\.0\.1/);
  });

  it('follows a change on the primary after its NOTIFY: records, serial, history under the system actor', async () => {
    writeFileSync(path.join(dir, 'second.zone'), zoneFile(2026112602, ['www 600 IN A 192.0.2.10', 'new 300 IN A 192.0.2.12', 'txt IN TXT "first"']));
    await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
    await eventually('Keyzone to follow the primary', async () => (await serialOf(zone)) === 2026112602, 90_000);
    const records = await recordsOf(zone);
    expect(records).toEqual(expect.arrayContaining([`new.${ZONE}. A 300 192.0.2.12`, `www.${ZONE}. A 600 192.0.2.10`]));
    expect(records.some((r) => r.startsWith(`old.${ZONE}.`))).toBe(false);
    expect(await secondaryOf(zone)).toMatchObject({ state: 'current', primary_serial: 2026112602, last_error: null });
    const history = (await alice.get(`/zone/${zone.id}/history?limit=100`)).body.history as Json[];
    const byRefresher = history.filter((h) => h.actor === 'secondary-refresh');
    expect(byRefresher.map((h) => `${h.object as string} ${h.action as string}`)).toEqual(expect.arrayContaining(['zone update', 'zone_record create', 'zone_record delete', 'zone_record update']));
    expect(byRefresher.every((h) => h.user.id === null)).toBe(true);
    expect(await run('dig', ['+short', '@127.0.0.1', '-p', String(listener.udpPort!), ZONE, 'SOA']).then((r) => r.stdout)).toMatch(/ 2026112602 /);
  });

  it('refuses a NOTIFY from another address or key, or for a zone that is not a secondary, and starts nothing', async () => {
    const before = await secondaryOf(zone);
    expect(await sendNotify(ZONE, '127.0.0.2')).toBe(5);
    expect(await sendNotify(ZONE, '127.0.0.2', { name: 'upd.sec2', algorithm: 'hmac-sha256', secret: otherKey.secret as string })).toBe(5);
    const primaryZone = expectStatus(await alice.post('/zone', { zone: 'plain-primary.example.' }), 201).body.zone as Json;
    expect(await sendNotify(primaryZone.zone as string, '127.0.0.1')).toBe(5);
    expect(await sendNotify('nowhere.example', '127.0.0.1')).toBe(5);
    const after = await secondaryOf(zone);
    expect(after.next_check_at).toBe(before.next_check_at);
    expect(after.last_check_at).toBe(before.last_check_at);
    // Refusals to one address are limited: a flood gets silence, not answers.
    const answers = await Promise.all(Array.from({ length: 12 }, () => sendNotify(ZONE, '127.0.0.3')));
    expect(answers).toContain('silence');
    // From the primary's address it is accepted (and checks at once; the clock moves so the check's time differs).
    server.clock.advance(1);
    expect(await sendNotify(ZONE, '127.0.0.1')).toBe(0);
    await eventually('the check the NOTIFY asked for', async () => (await secondaryOf(zone)).last_check_at !== before.last_check_at, 60_000);
    // Another one right after that check (a forged flood would look so): answered, but the primary is asked again only
    // secondary_min_refresh_seconds (1 s here) after the last check, and the test clock stands still.
    const checked = await secondaryOf(zone);
    expect(await sendNotify(ZONE, '127.0.0.1')).toBe(0);
    await refresher.idle();
    const deferred = await secondaryOf(zone);
    expect(Date.parse(deferred.next_check_at as string)).toBe(Date.parse(checked.last_check_at as string) + 1000);
    expect(deferred.last_check_at).toBe(checked.last_check_at);
  });

  it('keeps a TSIG-signed secondary with a stored key and accepts NOTIFY signed with that key from anywhere', async () => {
    expectStatus(await admin.post('/zone/import-axfr', { zone: SIGNED, server: '127.0.0.1', port: bind.dnsPort, keep_secondary: true }), 400);
    const signed = expectStatus(await admin.post('/zone/import-axfr', { zone: SIGNED, server: '127.0.0.1', port: bind.dnsPort, keep_secondary: true, tsig_key_id: key.id }), 201).body.zone as Json;
    expect(await secondaryOf(signed)).toMatchObject({ primary: { tsig_key_id: key.id }, state: 'current', primary_serial: 2026112601 });
    writeFileSync(path.join(dir, 'signed.zone'), zoneFile(2026112605, ['www 300 IN A 192.0.2.21']));
    await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
    await eventually('BIND to load the new serial', async () => (await dig(bind.dnsPort, SIGNED, 'SOA')).some((l) => l.includes(' 2026112605 ')));
    expect(await sendNotify(SIGNED, '127.0.0.4', { name: 'primary.sec2', algorithm: 'hmac-sha256', secret: key.secret as string })).toBe(0);
    await eventually('the signed secondary to follow', async () => (await serialOf(signed)) === 2026112605, 90_000);
    expect(await recordsOf(signed)).toEqual(expect.arrayContaining([`www.${SIGNED}. A 300 192.0.2.21`]));
  });

  it('is kept from the command line too (import-axfr --keep-secondary)', async () => {
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = server.database.url;
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await runImportAxfr(['--zone', 'cli-second.example', '--server', `127.0.0.1:${bind.dnsPort}`, '--as', 'root@Sec2', '--keep-secondary']);
      expect(log.mock.calls.flat().join('\n')).toMatch(/imported cli-second\.example\. .*kept as a secondary of 127\.0\.0\.1/);
    } finally {
      log.mockRestore();
      process.env.DATABASE_URL = saved;
    }
    const [cli] = (await alice.get('/zone?zone=cli-second.example.')).body.zone as Json[];
    expect(await secondaryOf(cli!)).toMatchObject({ state: 'current', primary: { address: '127.0.0.1', port: bind.dnsPort } });
  });

  it('never lets two claims hold one zone', async () => {
    const later = new Date(server.clock.now().getTime() + 10_000_000);
    await server.deps.db.updateTable('dns.secondary_zones').set({ next_check_at: new Date(later.getTime() - 1000) }).where('zone_id', '=', zone.id).execute();
    const claims = await Promise.all([0, 1, 2].map(() => claimSecondaryZones(server.deps.db, { now: later, leaseUntil: new Date(later.getTime() + 60_000), limit: 10 })));
    expect(claims.flat().filter((r) => r.zone_id === zone.id)).toHaveLength(1);
    // Let it go again, due at the test clock's time in the distant future only.
    await server.deps.db.updateTable('dns.secondary_zones').set({ lease_until: null, next_check_at: later }).where('zone_id', '=', zone.id).execute();
  });

  it('expires when the primary stays silent past the SOA expire (SERVFAIL), and resumes when it is back', async () => {
    await bind.stop();
    await refresher.idle();
    // Past the expire (86400) since the last answer: the next check fails and the zone expires.
    server.clock.advance(10_000_000 + 3600);
    alice = await server.login('alice@Sec2'); // the session ran out with the time that passed
    refresher.kick();
    await eventually('the zone to expire', async () => (await secondaryOf(zone)).state === 'expired', 60_000);
    const expired = await secondaryOf(zone);
    expect(expired.last_error).toMatch(/127\.0\.0\.1 port \d+/);
    expect(await statusAtKeyzone(ZONE, 'SOA')).toBe('SERVFAIL');
    expectStatus(await alice.post('/zone_record', { zid: zone.id, owner: 'new2', type: 'A', address: '192.0.2.99' }), 409);
    // BIND back on the same port; the next retry (the SOA retry, 3600 s) finds it.
    restarted = spawn('named', ['-g', '-c', path.join(dir, 'named.conf')], { stdio: 'ignore' });
    await eventually('BIND to answer again', async () => (await dig(bind.dnsPort, ZONE, 'SOA').catch(() => [])).length > 0, 60_000);
    server.clock.advance(3600);
    alice = await server.login('alice@Sec2');
    refresher.kick();
    await eventually('the zone to be current again', async () => (await secondaryOf(zone)).state === 'current', 60_000);
    expect(await statusAtKeyzone(ZONE, 'SOA')).toBe('NOERROR');
  });

  it('becomes a primary zone for whoever may write it, and is writable then', async () => {
    expectStatus(await alice.delete(`/zone/${zone.id}/secondary`), 200);
    expectStatus(await alice.get(`/zone/${zone.id}/secondary`), 404);
    expectStatus(await alice.post('/zone_record', { zid: zone.id, owner: 'mine', type: 'A', address: '192.0.2.50' }), 201);
    expect(await sendNotify(ZONE, '127.0.0.1')).toBe(5);
  });
});
