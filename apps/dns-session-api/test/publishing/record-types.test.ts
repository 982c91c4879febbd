// The record types added for NicTool (issue 38.4) served by real nameservers: CERT written with mnemonics,
// IPSECKEY, DHCID, HIP (which PowerDNS 4.7 lacks: sent in RFC 3597's generic form), KX and APL reach PowerDNS over
// its API and BIND through a zone file, and both answer them the same (checked with dig); a change and a delete
// of the HIP record reach PowerDNS too (its RRsets are keyed by the name PowerDNS knows the type by).
import type { CookieClient } from '../helpers/client';
import { dig, eventually, type Bind, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { type TestServer } from '../helpers/server';
import { addRecord, expectStatus } from '../zones/dns-client';

let stand: PublishingStand;
let pdns: PowerDns;
let bind: Bind;
let server: TestServer;
let alice: CookieClient;
const ZONE = 'types.example.';
const CERTIFICATE = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A';
const KEY = 'AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==';
const HIT = '200100107B1A74DF365639CC39F1D578';
const HIP_KEY = 'AwEAAbdxyhNuSutc5EMzxTs9LBPCIkOFH8cIvM4p9+LrV4e19WzK00+CI6zBCQTdtWsuxKbWIy87UOoJTwIXAqcOTiW7iHnQt5hwVAAAAA==';

beforeAll(async () => {
  stand = await startPublishingStand('types', 'ns1.pdns.test.');
  ({ pdns, bind, server } = stand);
  await server.seedUser({ group: 'Typists', username: 'alice', isAdmin: true });
  alice = await server.login('alice@Typists');
}, 120_000);

afterAll(async () => {
  await stand?.stop();
});

/** What dig says on both servers, once they agree with `expected` (case-insensitively: BIND writes hex uppercase). */
const onBoth = async (name: string, type: string, expected: string[]) => {
  const want = JSON.stringify(expected.map((e) => e.toLowerCase()).sort());
  for (const [which, port] of [['PowerDNS', pdns.dnsPort], ['BIND', bind.dnsPort]] as const) {
    await eventually(`${name} ${type} = ${expected.join(', ')} on ${which}`, async () =>
      JSON.stringify((await dig(port, name, type)).map((a) => a.toLowerCase().replace(/\s+/g, ' ')).sort()) === want);
  }
};

it('publishes CERT, IPSECKEY, DHCID, HIP, KX and APL to PowerDNS and BIND, which answer them alike', async () => {
  const ns1 = expectStatus(await alice.post('/nameserver', { name: 'ns1.pdns.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201).body.nameserver;
  const ns2 = expectStatus(await alice.post('/nameserver', { name: 'ns2.bind.test.', address: '192.0.2.2', export: { type: 'bind' } }), 201).body.nameserver;
  const zone = expectStatus(await alice.post('/zone', { zone: ZONE, nameservers: [ns1.id, ns2.id] }), 201).body.zone;
  const cert = await addRecord(alice, zone.id, { owner: 'cert', type: 'CERT', ttl: 300, cert_type: 'PKIX', key_tag: 12345, algorithm: 'ECDSAP256SHA256', certificate: CERTIFICATE });
  expect(cert).toMatchObject({ cert_type: 1, key_tag: 12345, algorithm: 13 });
  await addRecord(alice, zone.id, { owner: 'vpn', type: 'IPSECKEY', ttl: 300, precedence: 10, gateway_type: 1, algorithm: 2, gateway: '192.0.2.38', public_key: KEY });
  await addRecord(alice, zone.id, { owner: 'chi', type: 'DHCID', ttl: 300, data: 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=' });
  const hip = await addRecord(alice, zone.id, { owner: 'hip', type: 'HIP', ttl: 300, pk_algorithm: 2, hit: HIT, public_key: HIP_KEY, rendezvous_servers: 'rvs.types.example.' });
  await addRecord(alice, zone.id, { owner: 'secure', type: 'KX', ttl: 300, preference: 10, exchanger: 'kx.types.example.' });
  await addRecord(alice, zone.id, { owner: 'nets', type: 'APL', ttl: 300, items: '1:192.0.2.0/24 !1:192.0.2.64/28 2:2001:db8::/32' });

  await onBoth(`cert.${ZONE}`, 'CERT', [`PKIX 12345 ECDSAP256SHA256 ${CERTIFICATE}`]);
  await onBoth(`vpn.${ZONE}`, 'IPSECKEY', [`10 1 2 192.0.2.38 ${KEY}`]);
  await onBoth(`chi.${ZONE}`, 'DHCID', ['AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=']);
  await onBoth(`hip.${ZONE}`, 'HIP', [`2 ${HIT} ${HIP_KEY} rvs.types.example.`]);
  await onBoth(`secure.${ZONE}`, 'KX', ['10 kx.types.example.']);
  await onBoth(`nets.${ZONE}`, 'APL', ['1:192.0.2.0/24 !1:192.0.2.64/28 2:2001:db8::/32']);

  // a change of the HIP record and its deletion reach PowerDNS as well as BIND
  expectStatus(await alice.put(`/zone_record/${hip.id}`, { rendezvous_servers: '' }), 200);
  await onBoth(`hip.${ZONE}`, 'HIP', [`2 ${HIT} ${HIP_KEY}`]);
  expectStatus(await alice.delete(`/zone_record/${hip.id}`), 200);
  await onBoth(`hip.${ZONE}`, 'HIP', []);
  const status = (await alice.get(`/nameserver/${ns1.id}/status`)).body.status;
  expect(status).toMatchObject({ queued: 0, last_error: null });
}, 180_000);
