// Hardening of the DNS-protocol additions of issue 44 against an outside primary that misbehaves. The primary here is
// a small TCP nameserver of the test's own (BIND would not serve what a hostile primary sends): it answers SOA and
// AXFR for one zone from whatever records the test gives it.
import dgram from 'node:dgram';
import net from 'node:net';
import * as packet from 'dns-packet';
import { sql } from 'kysely';
import type { CookieClient } from '../helpers/client';
import { eventually } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener } from '../../src/dns-server/listener';
import type { Deps } from '../../src/deps';
import { markSecondaryDue } from '../../src/queries/secondary-zones';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

jest.setTimeout(120_000);

const ZONE = 'hostile.example';
let server: TestServer;
let deps: Deps;
let refresher: SecondaryRefresher;
let admin: CookieClient;

interface FakePrimary {
  port: number;
  zone: string;
  /** What it serves now: its serial and the records besides SOA, NS and the NS's address. */
  serial: number;
  records: packet.Answer[];
  /** While set, AXFR answers wait for it (a primary slow to send its zone). */
  gate?: Promise<void>;
  axfrAsked: number;
  server: net.Server;
}
const primaries: FakePrimary[] = [];

const soa = (zone: string, serial: number): packet.Answer => ({
  name: zone, type: 'SOA', ttl: 3600, class: 'IN',
  data: { mname: `ns1.${zone}`, rname: `hostmaster.${zone}`, serial, refresh: 1, retry: 1, expire: 86400, minimum: 300 },
});
const a = (zone: string, owner: string, address: string): packet.Answer => ({ name: `${owner}.${zone}`, type: 'A', ttl: 300, class: 'IN', data: address });

async function startPrimary(zone: string, serial: number, records: packet.Answer[]): Promise<FakePrimary> {
  const p: FakePrimary = { port: 0, zone, serial, records, axfrAsked: 0, server: undefined as unknown as net.Server };
  p.server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const query = packet.decode(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        const axfr = query.questions![0]!.type === 'AXFR';
        if (axfr) p.axfrAsked++;
        void (axfr && p.gate ? p.gate : Promise.resolve()).then(() => {
          const answers = axfr
            ? [soa(zone, p.serial), { name: zone, type: 'NS', ttl: 3600, class: 'IN', data: `ns1.${zone}` } as packet.Answer, a(zone, 'ns1', '192.0.2.53'), ...p.records, soa(zone, p.serial)]
            : [soa(zone, p.serial)];
          const answer = packet.encode({ id: query.id, type: 'response', flags: packet.AUTHORITATIVE_ANSWER, questions: query.questions, answers });
          const length = Buffer.alloc(2);
          length.writeUInt16BE(answer.length);
          if (!socket.destroyed) socket.write(Buffer.concat([length, answer]));
        });
      }
    });
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', () => resolve()));
  p.port = (p.server.address() as net.AddressInfo).port;
  primaries.push(p);
  return p;
}

const lastId = async (sequence: string) =>
  Number((await sql<{ last_value: string }>`select last_value from ${sql.raw(sequence)}`.execute(server.deps.db)).rows[0]!.last_value);

beforeAll(async () => {
  server = await startTestServer({ quotas: { recordsPerZone: 5 } });
  await server.seedUser({ group: 'Hostile', username: 'root', isAdmin: true });
  admin = await server.login('root@Hostile');
  deps = {
    ...server.deps,
    config: { ...server.deps.config, dns: { ...server.deps.config.dns, secondaryPollSeconds: 0.2, secondaryMinRefreshSeconds: 1 } },
  };
  refresher = new SecondaryRefresher(deps);
  deps.secondaries = refresher;
  server.deps.secondaries = refresher;
});
afterAll(async () => {
  await refresher?.stop();
  for (const p of primaries) p.server.close();
  await server?.close();
});

const secondaryOf = async (zoneId: number) => expectStatus(await admin.get(`/zone/${zoneId}/secondary`), 200).body.secondary as Json;
const ownersOf = async (zoneId: number) => ((await admin.get(`/zone/${zoneId}/records?limit=100`)).body.zone_record as Json[]).map((r) => String(r.owner)).sort();

test('a primary whose zone outgrows the record quota is refused before anything is written', async () => {
  const primary = await startPrimary(ZONE, 1, [a(ZONE, 'www', '192.0.2.1'), a(ZONE, 'mail', '192.0.2.2')]);
  const created = expectStatus(await admin.post('/zone/import-axfr', { zone: ZONE, server: '127.0.0.1', port: primary.port, keep_secondary: true }), 201);
  const zone = created.body.zone as Json;
  const secondary = () => secondaryOf(zone.id as number);
  expect(await secondary()).toMatchObject({ state: 'current', primary_serial: 1 });

  const records = await lastId('dns.zone_records_id_seq');
  const audit = await lastId('dns.audit_log_id_seq');
  // The primary now sends far more than the zone may hold: the refresher must not insert them all (each with a
  // history entry) only to roll back at the end, again at every retry.
  primary.serial = 2;
  primary.records = Array.from({ length: 200 }, (_, i) => a(ZONE, `h${i}`, `192.0.2.${(i % 250) + 1}`));
  // As a NOTIFY from the primary would: the zone is due now (the test clock stands still).
  await markSecondaryDue(server.deps.db, zone.id as number, server.deps.clock.now());
  refresher.start();
  await eventually('the refresher to give up on the oversized transfer', async () => /quota/.test(String((await secondary()).last_error)));
  await refresher.stop();
  expect(await secondary()).toMatchObject({ state: 'retrying', primary_serial: 1 });
  const held = (await admin.get(`/zone/${zone.id as number}/records?limit=100`)).body.zone_record as Json[];
  expect(held.map((r) => r.owner).filter((o) => o !== `${ZONE}.` && o !== `ns1.${ZONE}.`).sort()).toEqual([`mail.${ZONE}.`, `www.${ZONE}.`]);
  expect(await lastId('dns.zone_records_id_seq')).toBe(records);
  expect(await lastId('dns.audit_log_id_seq')).toBe(audit);
});

test('a zone re-pointed at another primary during a check keeps the new primary\'s zone, not the late answer of the old one', async () => {
  const zoneName = 'moved.example';
  const old = await startPrimary(zoneName, 1, [a(zoneName, 'first', '192.0.2.1')]);
  const created = expectStatus(await admin.post('/zone/import-axfr', { zone: zoneName, server: '127.0.0.1', port: old.port, keep_secondary: true }), 201);
  const zoneId = (created.body.zone as Json).id as number;
  // The old primary has a newer zone, but is slow to send it.
  let release!: () => void;
  old.gate = new Promise<void>((resolve) => { release = resolve; });
  old.serial = 5;
  old.records = [a(zoneName, 'from-old', '192.0.2.5')];
  const asked = old.axfrAsked;
  await markSecondaryDue(server.deps.db, zoneId, server.deps.clock.now());
  // Two instances: the first asks the old primary (one look, no timer); the second takes every later check.
  const first = new SecondaryRefresher(deps);
  first.kick();
  await eventually('the old primary to be asked for its zone', async () => old.axfrAsked > asked);
  refresher = new SecondaryRefresher({ ...deps });
  server.deps.secondaries = refresher;
  refresher.start();
  // Meanwhile an administrator points the zone at its new primary, whose serial is lower; it is checked and applied.
  const fresh = await startPrimary(zoneName, 3, [a(zoneName, 'from-new', '192.0.2.3')]);
  expectStatus(await admin.put(`/zone/${zoneId}/secondary`, { address: '127.0.0.1', port: fresh.port }), 200);
  await eventually('the new primary\'s zone', async () => (await ownersOf(zoneId)).includes(`from-new.${zoneName}.`));
  // Then the old primary's answer arrives: it must neither replace the records nor become the serial followed.
  release();
  await first.idle();
  await refresher.stop();
  expect(await ownersOf(zoneId)).toEqual([zoneName, `from-new.${zoneName}`, `ns1.${zoneName}`].map((n) => `${n}.`).sort());
  expect(await secondaryOf(zoneId)).toMatchObject({ primary: { address: '127.0.0.1', port: fresh.port }, primary_serial: 3, state: 'current' });
});

test('an IXFR over UDP counts towards max_transfers as one over TCP: beyond it, it is refused without reading the zone', async () => {
  const ns = await newNameserver(admin);
  const zone = await newZone(admin, { nameservers: [ns.id] });
  await addRecord(admin, zone.id as number, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  const name = String(zone.zone).replace(/\.$/, '');
  const listener = await startDnsListener({
    ...server.deps,
    config: { ...server.deps.config, dns: { ...server.deps.config.dns, enabled: true, port: 0, maxTransfers: 1, transferPeers: { [String(zone.zone)]: ['127.0.0.1'] } } },
  });
  const client = dgram.createSocket('udp4');
  const rcodes: string[] = [];
  client.on('message', (msg) => rcodes.push(['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'][msg.readUInt16BE(2) & 0xf] ?? 'other'));
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', () => resolve()));
  // While the zone's records cannot be read, a first IXFR (from a serial the history does not know) stays busy
  // reading; the others, from the same allowed peer address (which a forged UDP source can claim), are over the limit.
  let unlock!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => { locked = resolve; });
  const holder = server.deps.db.transaction().execute(async (trx) => {
    await sql`lock table dns.zone_records in access exclusive mode`.execute(trx);
    locked();
    await new Promise<void>((resolve) => { unlock = resolve; });
  });
  await isLocked;
  try {
    for (let i = 0; i < 4; i++) {
      const query = packet.encode({
        id: 100 + i, type: 'query', questions: [{ name, type: 'IXFR', class: 'IN' }],
        authorities: [{ name, type: 'SOA', ttl: 0, class: 'IN', data: { mname: 'x', rname: 'y', serial: 1, refresh: 0, retry: 0, expire: 0, minimum: 0 } }],
      });
      client.send(query, listener.udpPort!, '127.0.0.1');
      // The first must be under way before the next arrives.
      if (i === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await eventually('the IXFRs over the limit to be refused', async () => rcodes.filter((r) => r === 'REFUSED').length === 3, 10_000);
    expect(rcodes).toEqual(['REFUSED', 'REFUSED', 'REFUSED']);
  } finally {
    unlock();
    await holder;
  }
  await eventually('the first IXFR to be answered once the zone can be read', async () => rcodes.length === 4, 10_000);
  expect(rcodes[3]).toBe('NOERROR');
  client.close();
  await listener.close();
});
