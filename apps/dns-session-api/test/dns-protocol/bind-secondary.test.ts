// BIND (named) as a secondary of Keyzone (issue 44): it transfers a Keyzone zone by AXFR signed with a TSIG key
// made through the API, serves it, and after a change made through the API and a refresh serves the new serial
// and record, told by Keyzone's NOTIFY (RFC 1996) without being asked to refresh. A secondary with a wrong secret
// gets nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
let zone: Json;
let refused: Json;

beforeAll(async () => {
  server = await startTestServer();
  const { userId } = await server.seedUser({ group: 'Sec', username: 'alice' });
  alice = await server.login('alice@Sec');
  const ns = await newNameserver(alice, { name: 'ns1.sec.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  refused = await newZone(alice, { nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  await addRecord(alice, zone.id, { owner: 'txt', type: 'TXT', ttl: 300, data: '"v=spf1 -all"' });
  const key = expectStatus(await alice.post(`/user/${userId}/tsig-keys`, { name: 'bind.sec', algorithm: 'hmac-sha256', allow_transfer: true }), 201).body.tsig_key as Json;
  dir = mkdtempSync(path.join(os.tmpdir(), 'kz-bind-secondary-'));
  bind = await startBind(dir);
  listener = await startDnsListener({
    ...server.deps,
    config: {
      ...server.deps.config,
      dns: {
        ...server.deps.config.dns, enabled: true, port: 0, notifyPollSeconds: 0.2, notifyRetrySeconds: 1,
        notify: { [zone.zone as string]: [{ address: '127.0.0.1', port: bind.dnsPort }] },
      },
    },
  });
  const primary = (keyName: string) => `primaries port ${listener.tcpPort!} { 127.0.0.1 key "${keyName}"; }`;
  writeFileSync(path.join(bind.zonesDir, bind.includeFile), [
    `key "bind.sec" { algorithm hmac-sha256; secret "${key.secret as string}"; };`,
    `key "bind.sec.wrong" { algorithm hmac-sha256; secret "${Buffer.alloc(32, 7).toString('base64')}"; };`,
    `zone "${zone.zone as string}" { type secondary; ${primary('bind.sec')}; file "${path.join(dir, 'zone.bk')}"; };`,
    `zone "${refused.zone as string}" { type secondary; ${primary('bind.sec.wrong')}; file "${path.join(dir, 'refused.bk')}"; };`,
    '',
  ].join('\n'));
  await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
}, 180_000);
afterAll(async () => {
  await bind?.stop();
  await listener?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const serialOf = async () => (await alice.get(`/zone/${zone.id}`)).body.zone.serial as number;

describe('BIND as a secondary of Keyzone', () => {
  it('transfers the zone with TSIG and serves it', async () => {
    const serial = await serialOf();
    await eventually('BIND to load the zone', async () => (await dig(bind.dnsPort, zone.zone as string, 'SOA')).some((l) => l.includes(` ${serial} `)));
    expect(await dig(bind.dnsPort, `www.${zone.zone as string}`, 'A')).toEqual(['192.0.2.10']);
    expect(await dig(bind.dnsPort, `txt.${zone.zone as string}`, 'TXT')).toEqual(['"v=spf1 -all"']);
    expect(await dig(bind.dnsPort, zone.zone as string, 'NS')).toEqual(['ns1.sec.test.']);
  });

  it('follows a change after a NOTIFY from Keyzone', async () => {
    await addRecord(alice, zone.id, { owner: 'new', type: 'A', ttl: 300, address: '192.0.2.99' });
    const serial = await serialOf();
    // No rndc refresh: the zone's SOA refresh is hours, so only the NOTIFY can make BIND ask this soon.
    await eventually('BIND to take the new serial', async () => (await dig(bind.dnsPort, zone.zone as string, 'SOA')).some((l) => l.includes(` ${serial} `)));
    expect(await dig(bind.dnsPort, `new.${zone.zone as string}`, 'A')).toEqual(['192.0.2.99']);
  });

  it('gets nothing with a wrong secret', async () => {
    const status = bind.checkCommand.map((a) => (a === '{zone}' ? (refused.zone as string) : a));
    const out = await run(status[0]!, status.slice(1)).then((r) => r.stdout, (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`);
    expect(out).not.toMatch(/serial: \d+/);
    expect(await dig(bind.dnsPort, refused.zone as string, 'SOA')).toEqual([]);
  });
});
