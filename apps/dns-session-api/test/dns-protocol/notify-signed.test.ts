// BIND (named) as a secondary of Keyzone (issue 44) that takes NOTIFY only when it is signed with the peer's TSIG key
// (`allow-notify { key …; }`; Keyzone's listener is on 127.0.0.2 while its NOTIFY comes from 127.0.0.1, so BIND does
// not take it as coming from the primary): the zone whose secondary is listed with the key in dns.yml follows a change
// at once, by IXFR (request-ixfr yes) signed with the key, which BIND's log and journal show; the zone listed without a
// key gets its NOTIFY refused. Keyzone accepts BIND's answer only when it is signed over its NOTIFY.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import * as packet from 'dns-packet';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, startBind, type Bind } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';

const run = promisify(execFile);
jest.setTimeout(180_000);

let server: TestServer;
let listener: DnsListener;
let bind: Bind;
let dir: string;
let alice: CookieClient;
let signed: Json;
let unsigned: Json;
let forged: Json;
// A secondary that answers every NOTIFY unsigned: Keyzone must not take that as the answer to a signed one.
const unsignedPeer = dgram.createSocket('udp4');
const forgedSeen: Array<{ id: number; tsig: string | undefined }> = [];
let warn: jest.SpyInstance;
let info: jest.SpyInstance;
const logFile = () => path.join(dir, 'named-xfer.log');
const bindLog = () => (existsSync(logFile()) ? readFileSync(logFile(), 'utf8') : '');

beforeAll(async () => {
  server = await startTestServer();
  const { userId } = await server.seedUser({ group: 'Sig', username: 'alice' });
  alice = await server.login('alice@Sig');
  const ns = await newNameserver(alice, { name: 'ns1.sig.test.' });
  signed = await newZone(alice, { nameservers: [ns.id] });
  unsigned = await newZone(alice, { nameservers: [ns.id] });
  forged = await newZone(alice, { nameservers: [ns.id] });
  await new Promise<void>((resolve) => unsignedPeer.bind(0, '127.0.0.1', resolve));
  unsignedPeer.on('message', (msg, rinfo) => {
    const m = packet.decode(msg);
    forgedSeen.push({ id: m.id ?? 0, tsig: m.additionals?.find((r) => (r.type as string) === 'TSIG')?.name });
    unsignedPeer.send(packet.encode({ id: m.id, type: 'response', flags: (4 << 11) | packet.AUTHORITATIVE_ANSWER, questions: m.questions }), rinfo.port, rinfo.address);
  });
  for (const z of [signed, unsigned]) await addRecord(alice, z.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  const key = expectStatus(await alice.post(`/user/${userId}/tsig-keys`, { name: 'peer.sig', algorithm: 'hmac-sha512', allow_transfer: true }), 201).body.tsig_key as Json;
  dir = mkdtempSync(path.join(os.tmpdir(), 'kz-notify-signed-'));
  bind = await startBind(dir, '', logFile());
  const log = server.deps.log.child({});
  warn = jest.spyOn(log, 'warn');
  info = jest.spyOn(log, 'info');
  listener = await startDnsListener({
    ...server.deps,
    log,
    config: {
      ...server.deps.config,
      dns: {
        ...server.deps.config.dns, enabled: true, address: '127.0.0.2', port: 0, notifyPollSeconds: 0.2, notifyRetrySeconds: 2, notifyRetries: 3,
        notify: {
          [signed.zone as string]: [{ address: '127.0.0.1', port: bind.dnsPort, key: 'peer.sig' }],
          [unsigned.zone as string]: [{ address: '127.0.0.1', port: bind.dnsPort }],
          [forged.zone as string]: [{ address: '127.0.0.1', port: unsignedPeer.address().port, key: 'peer.sig' }],
        },
      },
    },
  });
  const zoneConf = (z: Json, file: string) =>
    `zone "${z.zone as string}" { type secondary; request-ixfr yes; primaries port ${listener.tcpPort!} { 127.0.0.2 key "peer.sig"; }; ` +
    `allow-notify { key "peer.sig"; }; file "${path.join(dir, file)}"; };`;
  writeFileSync(path.join(bind.zonesDir, bind.includeFile), [
    `key "peer.sig" { algorithm hmac-sha512; secret "${key.secret as string}"; };`,
    zoneConf(signed, 'signed.bk'),
    zoneConf(unsigned, 'unsigned.bk'),
    '',
  ].join('\n'));
  await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
}, 180_000);
afterAll(async () => {
  await bind?.stop();
  await listener?.close();
  unsignedPeer.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const serialOf = async (z: Json) => (await alice.get(`/zone/${z.id as number}`)).body.zone.serial as number;
const servedSerial = async (z: Json) => (await dig(bind.dnsPort, z.zone as string, 'SOA')).map((l) => Number(l.split(' ')[2]))[0];
const nameOf = (z: Json) => (z.zone as string).replace(/\.$/, '');

describe('BIND as a secondary taking only signed NOTIFY', () => {
  it('loads both zones by a transfer signed with the key', async () => {
    for (const z of [signed, unsigned]) {
      const serial = await serialOf(z);
      await eventually(`BIND to load ${z.zone as string}`, async () => (await servedSerial(z)) === serial, 60_000);
    }
  });

  it('follows a change of the zone whose NOTIFY is signed, by IXFR', async () => {
    // (The NOTIFY sent at start reached BIND before it knew the key: that answer, BADKEY, was rightly ignored.)
    const ignoredFromBind = () => warn.mock.calls.filter((c) => c[1] === 'NOTIFY answer ignored: its TSIG does not verify' && c[0].target === `127.0.0.1:${bind.dnsPort}`).length;
    const ignoredBefore = ignoredFromBind();
    const from = await serialOf(signed);
    await addRecord(alice, signed.id, { owner: 'new', type: 'A', ttl: 300, address: '192.0.2.99' });
    const serial = await serialOf(signed);
    // No rndc refresh: the zone's SOA refresh is hours, so only the signed NOTIFY can make BIND ask this soon.
    await eventually('BIND to take the new serial', async () => (await servedSerial(signed)) === serial, 60_000);
    expect(await dig(bind.dnsPort, `new.${signed.zone as string}`, 'A')).toEqual(['192.0.2.99']);
    const log = bindLog();
    expect(log).toMatch(new RegExp(`client @\\S+ 127\\.0\\.0\\.1#\\d+/key peer\\.sig: received notify for zone '${nameOf(signed)}': TSIG 'peer\\.sig'`));
    // BIND asked for an increment from the serial it had and applied it as one: its journal holds exactly that change.
    expect(log).toMatch(new RegExp(`zone ${nameOf(signed)}/IN: Transfer started`));
    expect(log).toMatch(new RegExp(`transfer of '${nameOf(signed)}/IN' from 127\\.0\\.0\\.2#\\d+: Transfer status: success`));
    const journal = path.join(dir, 'signed.bk.jnl');
    expect(existsSync(journal)).toBe(true);
    const { stdout } = await run('named-journalprint', [journal]);
    expect(stdout).toMatch(new RegExp(`^del ${nameOf(signed).replace(/\\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+SOA\\s+\\S+\\s+\\S+\\s+${from}\\s`, 'm'));
    expect(stdout).toMatch(new RegExp(`^add ${nameOf(signed).replace(/\\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+SOA\\s+\\S+\\s+\\S+\\s+${serial}\\s`, 'm'));
    expect(stdout.trim().split('\n')).toHaveLength(3); // the SOA pair and the one record: not a whole zone
    expect(stdout).toMatch(new RegExp(`add new\\.${nameOf(signed).replace(/\./g, '\\.')}\\.\\s+300\\s+IN\\s+A\\s+192\\.0\\.2\\.99`));
    // Keyzone answered incrementally (no fall back to the whole zone) and verified BIND's signed answer to its NOTIFY.
    expect(info.mock.calls.filter((c) => c[1] === 'IXFR answered with the whole zone')).toEqual([]);
    expect(ignoredFromBind()).toBe(ignoredBefore);
  });

  it('gets the unsigned NOTIFY of the other zone refused', async () => {
    await addRecord(alice, unsigned.id, { owner: 'new', type: 'A', ttl: 300, address: '192.0.2.98' });
    await eventually('BIND to refuse the unsigned NOTIFY', async () => bindLog().includes(`zone ${nameOf(unsigned)}/IN: refused notify from non-primary: 127.0.0.1#`), 60_000);
    expect(await servedSerial(unsigned)).not.toBe(await serialOf(unsigned));
  });

  it('keeps sending a signed NOTIFY whose answer is not signed', async () => {
    // notify_retries is 3: the first send and three more, one id, each signed with the peer's key.
    await eventually('the NOTIFY to be sent four times', async () => forgedSeen.length >= 4, 60_000);
    expect(new Set(forgedSeen.map((s) => s.id)).size).toBe(1);
    expect(forgedSeen.every((s) => s.tsig === 'peer.sig')).toBe(true);
    expect(warn.mock.calls.some((c) => c[1] === 'NOTIFY answer ignored: its TSIG does not verify' && c[0].reason === 'an answer without TSIG')).toBe(true);
  });
});
