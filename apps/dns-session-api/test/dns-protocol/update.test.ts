// RFC 2136 UPDATE through Keyzone's DNS listener (issue 44), driven by nsupdate: adds and deletes signed with a
// TSIG key become ordinary Keyzone changes (the API shows them, the serial moves, the history names the key);
// prerequisites, scope, unknown zones, bad signatures and a message that is only partly acceptable are refused
// with RFC 2136's RCODEs and change nothing.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';

jest.setTimeout(120_000);

let server: TestServer;
let listener: DnsListener;
let alice: CookieClient;
let aliceId: number;
let zone: Json;
let other: Json;
let full: Json;
let acme: Json;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  ({ userId: aliceId } = await server.seedUser({ group: 'Upd', username: 'alice' }));
  alice = await server.login('alice@Upd');
  const ns = await newNameserver(alice, { name: 'ns1.upd.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  other = await newZone(alice, { nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  full = expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, { name: 'full.upd', algorithm: 'hmac-sha512', zones: [zone.id] }), 201).body.tsig_key;
  acme = expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, { name: 'acme.upd', names: ['_acme-challenge.*'], types: ['TXT'] }), 201).body.tsig_key;
  listener = await startDnsListener({ ...server.deps, config: { ...server.deps.config, dns: { ...server.deps.config.dns, enabled: true, port: 0 } } });
  port = listener.tcpPort!;
}, 120_000);
afterAll(async () => {
  await listener?.close();
  await server?.close();
});

const nameOf = (z: Json) => (z.zone as string).replace(/\.$/, '');
const yOf = (k: Json, secret = k.secret as string) => `${k.algorithm as string}:${k.name as string}:${secret}`;

/** nsupdate with this script over TCP (-v); its output and exit code. */
function nsupdate(key: string | undefined, lines: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('nsupdate', ['-v', ...(key ? ['-y', key] : [])]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
    child.stdin.end([`server 127.0.0.1 ${port}`, ...lines, 'send', ''].join('\n'));
  });
}

async function records(z: Json): Promise<Json[]> {
  return (await alice.get(`/zone/${z.id}/records?limit=100`)).body.zone_record as Json[];
}
const serialOf = async (z: Json) => (await alice.get(`/zone/${z.id}`)).body.zone.serial as number;

describe('RFC 2136 UPDATE', () => {
  it('adds and deletes records as Keyzone changes: the API shows them, the serial moves, the history names the key', async () => {
    const before = await serialOf(zone);
    const added = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `update add api.${nameOf(zone)} 600 A 192.0.2.20`, `update add api.${nameOf(zone)} 600 A 192.0.2.21`, `update add ${nameOf(zone)} 600 MX 10 mx.example.net.`]);
    expect(added).toMatchObject({ code: 0 });
    const now = await records(zone);
    expect(now.filter((r) => r.owner === `api.${zone.zone as string}` && r.type === 'A').map((r) => r.address).sort()).toEqual(['192.0.2.20', '192.0.2.21']);
    expect(now.find((r) => r.type === 'MX')).toMatchObject({ exchange: 'mx.example.net.', preference: 10, ttl: 600 });
    expect(await serialOf(zone)).toBeGreaterThan(before);
    const history = (await alice.get(`/zone/${zone.id}/history`)).body.history as Json[];
    const created = history.find((h) => h.action === 'create' && (h.after as Json)?.address === '192.0.2.20');
    expect(created).toMatchObject({ tsig_key: { name: 'full.upd' }, api_token: null, user: { id: aliceId } });

    // One record out of the RRset, then the rest of the name.
    expect(await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `update delete api.${nameOf(zone)} A 192.0.2.20`])).toMatchObject({ code: 0 });
    expect((await records(zone)).filter((r) => r.owner === `api.${zone.zone as string}`).map((r) => r.address)).toEqual(['192.0.2.21']);
    expect(await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `update delete api.${nameOf(zone)}`])).toMatchObject({ code: 0 });
    expect((await records(zone)).filter((r) => r.owner === `api.${zone.zone as string}`)).toEqual([]);
    const deleted = ((await alice.get(`/zone/${zone.id}/history`)).body.history as Json[]).filter((h) => h.action === 'delete');
    expect(deleted.length).toBeGreaterThanOrEqual(2);
    expect(deleted.every((h) => (h.tsig_key as Json)?.name === 'full.upd')).toBe(true);
  });

  it('answers a failed prerequisite with NXRRSET, YXRRSET or YXDOMAIN and changes nothing', async () => {
    const before = await serialOf(zone);
    const nx = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `prereq yxrrset nothere.${nameOf(zone)} A`, `update add p1.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(nx.code).not.toBe(0);
    expect(nx.out).toMatch(/NXRRSET/);
    const yx = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `prereq nxrrset www.${nameOf(zone)} A`, `update add p2.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(yx.out).toMatch(/YXRRSET/);
    const yxd = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `prereq nxdomain www.${nameOf(zone)}`, `update add p3.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(yxd.out).toMatch(/YXDOMAIN/);
    // Value-dependent: the RRset exactly as given passes.
    const exact = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `prereq yxrrset www.${nameOf(zone)} A 192.0.2.10`, `update add p4.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(exact).toMatchObject({ code: 0 });
    const owners = (await records(zone)).map((r) => r.owner);
    expect(owners).not.toContain(`p1.${zone.zone as string}`);
    expect(owners).not.toContain(`p2.${zone.zone as string}`);
    expect(owners).toContain(`p4.${zone.zone as string}`);
    expect(await serialOf(zone)).toBeGreaterThan(before);
  });

  it('applies a message whole or not at all', async () => {
    const before = await serialOf(zone);
    // The second update puts a CNAME beside an A: the zone rules refuse it, so the first must not stay either.
    const out = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `update add ok.${nameOf(zone)} 60 A 192.0.2.30`, `update add www.${nameOf(zone)} 60 CNAME ok.${nameOf(zone)}.`]);
    expect(out.out).toMatch(/REFUSED/);
    expect((await records(zone)).map((r) => r.owner)).not.toContain(`ok.${zone.zone as string}`);
    expect(await serialOf(zone)).toBe(before);
  });

  it('refuses what the key may not do (REFUSED), zones Keyzone does not hold (NOTAUTH) and unsigned updates', async () => {
    const wrongType = await nsupdate(yOf(acme), [`zone ${nameOf(zone)}`, `update add _acme-challenge.${nameOf(zone)} 60 CAA 0 issue "ca.example"`]);
    expect(wrongType.out).toMatch(/REFUSED/);
    const wrongName = await nsupdate(yOf(acme), [`zone ${nameOf(zone)}`, `update add www2.${nameOf(zone)} 60 TXT "x"`]);
    expect(wrongName.out).toMatch(/REFUSED/);
    const wrongZone = await nsupdate(yOf(full), [`zone ${nameOf(other)}`, `update add x.${nameOf(other)} 60 A 192.0.2.1`]);
    expect(wrongZone.out).toMatch(/REFUSED/);
    const notHeld = await nsupdate(yOf(full), ['zone not-held.example', 'update add x.not-held.example 60 A 192.0.2.1']);
    expect(notHeld.out).toMatch(/NOTAUTH/);
    const unsigned = await nsupdate(undefined, [`zone ${nameOf(zone)}`, `update add x.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(unsigned.out).toMatch(/REFUSED/);
    // The ACME key does what it is for.
    expect(await nsupdate(yOf(acme), [`zone ${nameOf(zone)}`, `update add _acme-challenge.${nameOf(zone)} 60 TXT "token-1"`])).toMatchObject({ code: 0 });
    expect((await records(zone)).find((r) => r.type === 'TXT')).toMatchObject({ owner: `_acme-challenge.${zone.zone as string}`, data: 'token-1' });
  });

  it('answers a bad signature and a time outside the window with NOTAUTH and the TSIG error', async () => {
    const bad = await nsupdate(yOf(full, randomBytes(64).toString('base64')), [`zone ${nameOf(zone)}`, `update add bad.${nameOf(zone)} 60 A 192.0.2.1`]);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/update failed: NOTAUTH\(BADSIG\)/);
    server.clock.advance(-3600);
    try {
      const late = await nsupdate(yOf(full), [`zone ${nameOf(zone)}`, `update add late.${nameOf(zone)} 60 A 192.0.2.1`]);
      expect(late.code).not.toBe(0);
      expect(late.out).toMatch(/update failed: NOTAUTH\(BADTIME\)/);
    } finally {
      server.clock.advance(3600);
    }
    const owners = (await records(zone)).map((r) => r.owner);
    expect(owners).not.toContain(`bad.${zone.zone as string}`);
    expect(owners).not.toContain(`late.${zone.zone as string}`);
  });
});
