// A real ACME client through RFC 2136 (issue 44): Debian's lego, with its rfc2136 provider sending UPDATEs to
// Keyzone's DNS listener signed with a TSIG key scoped to _acme-challenge TXT of one zone, gets a certificate from a
// local ACME server (Debian's pebble) that checks the DNS-01 challenge against the PowerDNS Keyzone publishes to.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, freePort, preparePowerDns, type PowerDns } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectStatus, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';

const tools = ['lego', 'pebble'].filter((tool) => !['/usr/bin', '/usr/local/bin'].some((dir) => existsSync(path.join(dir, tool))));
if (tools.length > 0) {
  // CI installs both: there a missing tool is a failure, not a skip.
  if (process.env.KEYZONE_REQUIRE_TOOLS === '1') throw new Error(`lego-rfc2136.test.ts: ${tools.join(' and ')} not installed (apt-get install lego pebble)`);
  console.warn(`lego-rfc2136.test.ts: ${tools.join(' and ')} not installed (apt-get install lego pebble): skipped`);
}
const describeWithTools = tools.length === 0 ? describe : describe.skip;

let dir: string;
let pdns: PowerDns;
let server: TestServer;
let alice: CookieClient;
let aliceId: number;
let pebble: ChildProcess | undefined;
let listener: DnsListener;

function run(command: string, args: string[], options: { env?: Record<string, string>; timeoutMs: number }): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...process.env, ...options.env }, timeout: options.timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describeWithTools('lego with its rfc2136 provider, against pebble', () => {
  let acmeUrl: string;
  let caFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kz-lego-'));
    pdns = await preparePowerDns(path.join(dir, 'pdns'));
    await pdns.start();
    server = await startTestServer({
      publish: {
        enabled: true, pollSeconds: 0.2, timeoutSeconds: 5, maxRetrySeconds: 1,
        powerdns: { 'ns1.acme.test.': { url: pdns.apiUrl, apiKey: pdns.apiKey, serverId: 'localhost' } },
      },
    });
    server.deps.publisher?.start();
    listener = await startDnsListener({ ...server.deps, config: { ...server.deps.config, dns: { ...server.deps.config.dns, enabled: true, port: 0 } } });
    ({ userId: aliceId } = await server.seedUser({ group: 'Certificates', username: 'alice', isAdmin: true }));
    alice = await server.login('alice@Certificates');

    // pebble's own TLS certificate (lego must trust it) and its configuration.
    caFile = path.join(dir, 'acme-cert.pem');
    const keyFile = path.join(dir, 'acme-key.pem');
    const made = await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', caFile, '-days', '2',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { timeoutMs: 30_000 });
    if (made.code !== 0) throw new Error(made.output);
    const [listen, management, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`, managementListenAddress: `127.0.0.1:${management}`, certificate: caFile, privateKey: keyFile,
        httpPort, tlsPort, ocspResponderURL: '', externalAccountBindingRequired: false,
      },
    }));
    acmeUrl = `https://127.0.0.1:${listen}/dir`;
    pebble = spawn('pebble', ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${pdns.dnsPort}`], {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' }, stdio: 'ignore',
    });
    const ca = readFileSync(caFile);
    await eventually('pebble to answer', () => new Promise((resolve) => {
      https.get(acmeUrl, { ca }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    }));
  }, 120_000);

  afterAll(async () => {
    pebble?.kill('SIGTERM');
    await listener?.close();
    await server?.deps.publisher?.stop();
    await server?.close();
    await pdns?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('obtains a certificate for a Keyzone zone with a TSIG key scoped to _acme-challenge TXT', async () => {
    const ns = expectStatus(await alice.post('/nameserver', { name: 'ns1.acme.test.', address: '192.0.2.53', export: { type: 'powerdns' } }), 201).body.nameserver;
    const zoneName = `rfc2136-${Date.now().toString(36)}.example.`;
    const zone = expectStatus(await alice.post('/zone', { zone: zoneName, mailaddr: `hostmaster@${zoneName}`, nameservers: [ns.id] }), 201).body.zone as Json;
    await eventually('the zone on PowerDNS', async () => (await dig(pdns.dnsPort, zoneName, 'SOA')).length === 1);
    const key = expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, {
      name: 'lego.rfc2136', algorithm: 'hmac-sha256', zones: [zone.id], names: ['_acme-challenge.*'], types: ['TXT'],
    }), 201).body.tsig_key as Json;

    const domain = `www.${zoneName.replace(/\.$/, '')}`;
    const legoDir = path.join(dir, 'lego');
    const lego = await run('lego', [
      '--server', acmeUrl, '--email', 'admin@example.com', '--accept-tos', '--key-type', 'ec256', '--path', legoDir,
      '--dns', 'rfc2136', '--dns.resolvers', `127.0.0.1:${pdns.dnsPort}`, '--dns.disable-cp', '--domains', domain, 'run',
    ], {
      env: {
        RFC2136_NAMESERVER: `127.0.0.1:${listener.tcpPort!}`, RFC2136_TSIG_KEY: key.name as string, RFC2136_TSIG_SECRET: key.secret as string,
        RFC2136_TSIG_ALGORITHM: 'hmac-sha256.', RFC2136_TTL: '60', RFC2136_PROPAGATION_TIMEOUT: '60', RFC2136_POLLING_INTERVAL: '1',
        LEGO_CA_CERTIFICATES: caFile,
      },
      timeoutMs: 180_000,
    });
    expect([lego.code, lego.code === 0 ? '' : lego.output]).toEqual([0, '']);
    const certificate = readFileSync(path.join(legoDir, 'certificates', `${domain}.crt`), 'utf8');
    expect(certificate).toContain('BEGIN CERTIFICATE');

    // lego cleaned up after itself by UPDATE too; both changes are in the zone's history under the key.
    await eventually('the challenge gone from PowerDNS', async () => (await dig(pdns.dnsPort, `_acme-challenge.${domain}.`, 'TXT')).length === 0);
    const history = (await alice.get(`/zone/${zone.id}/history`)).body.history as Json[];
    const byKey = history.filter((h) => h.tsig_key?.name === 'lego.rfc2136').map((h) => h.action).sort();
    expect(byKey).toEqual(['create', 'delete']);
  }, 240_000);
});
