// DNSSEC through the nameservers (issue 32): a zone with dnssec on is signed by PowerDNS (cryptokeys through its
// API) and by BIND (dnssec-policy, inline signing); dig +dnssec shows RRSIGs, delv validates an answer with the DS
// Keyzone computed as the only trust anchor, a changed record is re-signed and still validates, and turning it off
// serves the zone unsigned again.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CookieClient } from '../helpers/client';
import { eventually, preparePowerDns, startBind, type Bind, type PowerDns } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, type Json } from '../zones/dns-client';

let dir: string;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
let keyDirectory: string;
let onPowerDns: Json;
let onBind: Json;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kz-dnssec-'));
  pdns = await preparePowerDns(path.join(dir, 'pdns'));
  await pdns.start();
  bind = await startBind(path.join(dir, 'bind'));
  keyDirectory = path.join(dir, 'bind', 'keys');
  mkdirSync(keyDirectory, { recursive: true });
  server = await startTestServer({
    publish: {
      enabled: true, pollSeconds: 0.2, timeoutSeconds: 5, maxRetrySeconds: 1,
      powerdns: { 'ns1.signed.test.': { url: pdns.apiUrl, apiKey: pdns.apiKey, serverId: 'localhost' } },
      zoneFiles: { directory: bind.zonesDir, includeFile: bind.includeFile, reloadCommand: bind.reloadCommand, keyDirectory },
    },
  });
  server.deps.publisher?.start();
  const { groupId } = await server.seedUser({ group: 'Signers', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Signers');
  // New zones of the group are signed unless they say otherwise.
  expect(expectStatus(await alice.put(`/group/${groupId}`, { dnssec_default: true }), 200).body.group.dnssec_default).toBe(true);
  onPowerDns = expectStatus(await alice.post('/nameserver', { name: 'ns1.signed.test.', address: '192.0.2.53', export: { type: 'powerdns' } }), 201).body.nameserver;
  onBind = expectStatus(await alice.post('/nameserver', { name: 'ns2.signed.test.', address: '192.0.2.54', export: { type: 'bind' } }), 201).body.nameserver;
}, 120_000);

afterAll(async () => {
  await server?.deps.publisher?.stop();
  await server?.close();
  await pdns?.stop();
  await bind?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function tool(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => execFile(command, args, { timeout: 15_000 }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`)));
}

const digDnssec = (port: number, name: string, type: string) => tool('dig', ['+dnssec', '+norecurse', '+time=2', '+tries=1', '@127.0.0.1', '-p', String(port), name, type]);

/** delv with the zone's DS (as Keyzone gives it to the registrar) as the one trust anchor. */
async function validates(port: number, zoneName: string, ds: Json, name: string, type: string, expected: string): Promise<boolean> {
  const anchors = path.join(dir, `anchors-${ds.key_tag as number}-${port}.conf`);
  writeFileSync(anchors, `trust-anchors { "${zoneName}" static-ds ${ds.key_tag as number} ${ds.algorithm as number} ${ds.digest_type as number} "${ds.digest as string}"; };\n`);
  const out = await tool('delv', ['@127.0.0.1', '-p', String(port), '-a', anchors, `+root=${zoneName}`, name, type]);
  return out.includes('; fully validated') && out.includes(expected);
}

async function signedZone(nameserver: Json, label: string, port: number): Promise<{ zone: Json; ds: Json }> {
  const name = `${label}-${Date.now().toString(36)}.example.`;
  const zone = expectStatus(await alice.post('/zone', { zone: name, mailaddr: `hostmaster@${name}`, nameservers: [nameserver.id] }), 201).body.zone as Json;
  expect(zone.dnssec).toBe(true);
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 60, address: '192.0.2.10' });
  await eventually(`${name} signed`, async () => /RRSIG\s+A /.test(await digDnssec(port, `www.${name}`, 'A')), 60_000);
  let state: Json = {};
  await eventually(`${name} DNSSEC state signed`, async () => {
    state = expectStatus(await alice.get(`/zone/${zone.id}/dnssec`), 200).body.dnssec;
    return state.state === 'signed';
  }, 60_000);
  expect(state.dnskeys).toEqual([expect.objectContaining({ flags: 257, algorithm: 13 })]);
  expect(state.ds.map((d: Json) => d.digest_type)).toEqual([2, 4]);
  return { zone, ds: state.ds[0] };
}

async function resigned(zone: Json, ds: Json, port: number): Promise<void> {
  const name = zone.zone as string;
  expect(await validates(port, name, ds, `www.${name}`, 'A', '192.0.2.10')).toBe(true);
  // A wrong anchor does not validate: delv really checks.
  expect(await validates(port, name, { ...ds, digest: ds.digest.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) }, `www.${name}`, 'A', '192.0.2.10')).toBe(false);

  const record = (await alice.get(`/zone/${zone.id}/records`)).body.zone_record.find((r: Json) => r.type === 'A');
  expectStatus(await alice.put(`/zone_record/${record.id}`, { address: '192.0.2.11' }), 200);
  await eventually(`www.${name} re-signed`, () => validates(port, name, ds, `www.${name}`, 'A', '192.0.2.11'), 60_000);
}

it('PowerDNS signs a zone (one CSK, algorithm 13); the DS Keyzone gives validates its answers, before and after a change', async () => {
  const { zone, ds } = await signedZone(onPowerDns, 'pdns', pdns.dnsPort);
  // The DS Keyzone computes is the one PowerDNS gives for its key.
  const keys = await (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${zone.zone as string}/cryptokeys`, { headers: { 'x-api-key': pdns.apiKey } })).json() as Json[];
  expect(keys[0]!.ds).toContain(`${ds.key_tag as number} 13 2 ${(ds.digest as string).toLowerCase()}`);
  await resigned(zone, ds, pdns.dnsPort);
  // Off: PowerDNS serves the zone unsigned at once (the README: remove the DS at the registrar first).
  expectStatus(await alice.put(`/zone/${zone.id}`, { dnssec: false }), 200);
  await eventually(`${zone.zone as string} unsigned`, async () => {
    const out = await digDnssec(pdns.dnsPort, `www.${zone.zone as string}`, 'A');
    return out.includes('192.0.2.11') && !/RRSIG/.test(out);
  }, 60_000);
  expect((await alice.get(`/zone/${zone.id}/dnssec`)).body.dnssec).toMatchObject({ enabled: false, state: 'unsigned', ds: [] });
}, 180_000);

it('BIND signs a zone with dnssec-policy (inline signing, keys in key_directory), the same way', async () => {
  const { zone, ds } = await signedZone(onBind, 'bind', bind.dnsPort);
  await resigned(zone, ds, bind.dnsPort);
  // Off: BIND's insecure policy withdraws DNSSEC in its safe order; BIND was never told a DS went to the parent
  // (no parental-agents here), so it unsigns without waiting for one to go.
  expectStatus(await alice.put(`/zone/${zone.id}`, { dnssec: false }), 200);
  await eventually('the insecure policy in the include', async () =>
    readFileSync(path.join(bind.zonesDir, bind.includeFile), 'utf8').includes(`zone "${(zone.zone as string).replace(/\.$/, '')}" {`) &&
    readFileSync(path.join(bind.zonesDir, bind.includeFile), 'utf8').includes('dnssec-policy "insecure";'));
  await eventually(`${zone.zone as string} unsigned`, async () => {
    const out = await digDnssec(bind.dnsPort, `www.${zone.zone as string}`, 'A');
    return out.includes('192.0.2.11') && !/RRSIG/.test(out);
  }, 90_000);
  // Once BIND serves it unsigned (its key states say the signatures are withdrawn; the key files stay, and BIND keeps
  // an unused DNSKEY until its removal date), the zone reads unsigned, without a DS to give the registrar.
  let state: Json = {};
  await eventually(`${zone.zone as string} DNSSEC state unsigned`, async () => {
    state = (await alice.get(`/zone/${zone.id}/dnssec`)).body.dnssec;
    return state.state === 'unsigned';
  }, 90_000);
  expect(state).toMatchObject({ enabled: false, state: 'unsigned', ds: [], dnskeys: [] });
}, 180_000);

it('while PowerDNS cannot be asked, a zone turned unsigned reads pending, not unsigned, until PowerDNS has dropped its keys', async () => {
  const { zone } = await signedZone(onPowerDns, 'pdns-down', pdns.dnsPort);
  await pdns.stop();
  try {
    expectStatus(await alice.put(`/zone/${zone.id}`, { dnssec: false }), 200);
    const state = expectStatus(await alice.get(`/zone/${zone.id}/dnssec`), 200).body.dnssec;
    expect(state).toMatchObject({ enabled: false, state: 'pending' });
    expect(state.nameservers).toEqual([expect.objectContaining({ id: onPowerDns.id, error: expect.stringContaining('did not answer') })]);
  } finally {
    await pdns.start();
  }
  await eventually(`${zone.zone as string} DNSSEC state unsigned`, async () => {
    server.clock.advance(5); // past the retry backoff of the publish that failed meanwhile
    return (await alice.get(`/zone/${zone.id}/dnssec`)).body.dnssec.state === 'unsigned';
  }, 60_000);
  expect(/RRSIG/.test(await digDnssec(pdns.dnsPort, `www.${zone.zone as string}`, 'A'))).toBe(false);
}, 180_000);

it('NSEC3 on request, on PowerDNS and on BIND: a name that does not exist is denied with NSEC3, validated', async () => {
  for (const { ns, port } of [{ ns: onPowerDns, port: pdns.dnsPort }, { ns: onBind, port: bind.dnsPort }]) {
    const name = `nsec3-${ns.export.type as string}-${Date.now().toString(36)}.example.`;
    const zone = expectStatus(await alice.post('/zone', { zone: name, mailaddr: `hostmaster@${name}`, nameservers: [ns.id], nsec3: true }), 201).body.zone as Json;
    expect(zone).toMatchObject({ dnssec: true, nsec3: true });
    await eventually(`${name} denies with NSEC3`, async () => /\sNSEC3\s/.test(await digDnssec(port, `nothing-here.${name}`, 'A')), 60_000);
    expect(await digDnssec(port, `nothing-here.${name}`, 'A')).not.toMatch(/\sNSEC\s/);
    let ds: Json = {};
    await eventually(`${name} DNSSEC state signed`, async () => {
      const state = expectStatus(await alice.get(`/zone/${zone.id}/dnssec`), 200).body.dnssec;
      ds = state.ds[0];
      return state.state === 'signed' && state.nsec3 === true;
    }, 60_000);
    await eventually(`the denial of nothing-here.${name} validates`, async () => {
      const anchors = path.join(dir, `anchors-nsec3-${ds.key_tag as number}.conf`);
      writeFileSync(anchors, `trust-anchors { "${name}" static-ds ${ds.key_tag as number} ${ds.algorithm as number} ${ds.digest_type as number} "${ds.digest as string}"; };\n`);
      const out = await tool('delv', ['@127.0.0.1', '-p', String(port), '-a', anchors, `+root=${name}`, `nothing-here.${name}`, 'A']);
      return /negative response, fully validated/.test(out);
    }, 60_000);
  }
}, 180_000);

it('a zone can opt out of its group\'s default, and only sees what it may', async () => {
  const zone = expectStatus(await alice.post('/zone', { zone: `plain-${Date.now().toString(36)}.example.`, nameservers: [onPowerDns.id], dnssec: false }), 201).body.zone;
  expect(zone.dnssec).toBe(false);
  expect((await alice.get(`/zone/${zone.id}/dnssec`)).body.dnssec).toMatchObject({ enabled: false, state: 'unsigned' });
  await server.seedUser({ group: 'Outsiders', username: 'eve' });
  const eve = await server.login('eve@Outsiders');
  expectStatus(await eve.get(`/zone/${zone.id}/dnssec`), 403);
  expectStatus(await alice.get('/zone/999999/dnssec'), 404);
});
