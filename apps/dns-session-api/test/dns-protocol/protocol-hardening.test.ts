// Hardening of the DNS-protocol additions of issue 44 against an outside primary that misbehaves. The primary here is
// a small TCP nameserver of the test's own (BIND would not serve what a hostile primary sends): it answers SOA and
// AXFR for one zone from whatever records the test gives it.
import net from 'node:net';
import * as packet from 'dns-packet';
import { sql } from 'kysely';
import type { CookieClient } from '../helpers/client';
import { eventually } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectStatus, type Json } from '../zones/dns-client';
import type { Deps } from '../../src/deps';
import { markSecondaryDue } from '../../src/queries/secondary-zones';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

jest.setTimeout(120_000);

const ZONE = 'hostile.example';
let server: TestServer;
let deps: Deps;
let refresher: SecondaryRefresher;
let admin: CookieClient;
let primary: net.Server;
let primaryPort: number;
/** What the primary serves now: its serial and the records besides SOA. */
let served: { serial: number; records: packet.Answer[] };

const soa = (serial: number): packet.Answer => ({
  name: ZONE, type: 'SOA', ttl: 3600, class: 'IN',
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial, refresh: 1, retry: 1, expire: 86400, minimum: 300 },
});
const a = (owner: string, address: string): packet.Answer => ({ name: `${owner}.${ZONE}`, type: 'A', ttl: 300, class: 'IN', data: address });

function startPrimary(): Promise<void> {
  primary = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const query = packet.decode(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        const q = query.questions![0]!;
        const answers = q.type === 'AXFR'
          ? [soa(served.serial), { name: ZONE, type: 'NS', ttl: 3600, class: 'IN', data: `ns1.${ZONE}` } as packet.Answer, a('ns1', '192.0.2.53'), ...served.records, soa(served.serial)]
          : [soa(served.serial)];
        const answer = packet.encode({ id: query.id, type: 'response', flags: packet.AUTHORITATIVE_ANSWER, questions: query.questions, answers });
        const length = Buffer.alloc(2);
        length.writeUInt16BE(answer.length);
        socket.write(Buffer.concat([length, answer]));
      }
    });
  });
  return new Promise((resolve) => primary.listen(0, '127.0.0.1', () => {
    primaryPort = (primary.address() as net.AddressInfo).port;
    resolve();
  }));
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
  served = { serial: 1, records: [a('www', '192.0.2.1'), a('mail', '192.0.2.2')] };
  await startPrimary();
});
afterAll(async () => {
  await refresher?.stop();
  primary?.close();
  await server?.close();
});

test('a primary whose zone outgrows the record quota is refused before anything is written', async () => {
  const created = expectStatus(await admin.post('/zone/import-axfr', { zone: ZONE, server: '127.0.0.1', port: primaryPort, keep_secondary: true }), 201);
  const zone = created.body.zone as Json;
  const secondary = async () => expectStatus(await admin.get(`/zone/${zone.id as number}/secondary`), 200).body.secondary as Json;
  expect(await secondary()).toMatchObject({ state: 'current', primary_serial: 1 });

  const records = await lastId('dns.zone_records_id_seq');
  const audit = await lastId('dns.audit_log_id_seq');
  // The primary now sends far more than the zone may hold: the refresher must not insert them all (each with a
  // history entry) only to roll back at the end, again at every retry.
  served = { serial: 2, records: Array.from({ length: 200 }, (_, i) => a(`h${i}`, `192.0.2.${(i % 250) + 1}`)) };
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
