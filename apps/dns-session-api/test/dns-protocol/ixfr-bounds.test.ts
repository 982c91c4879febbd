// IXFR's work is bounded by the zone's size, reviewed for issue 44: the history of the steps asked for is read before
// the difference is measured, so a zone whose history is much larger than the zone itself (here: one transaction
// that changed a record hundreds of times, as a zone rewritten whole at each serial would) is answered with the whole
// zone, which any transfer peer could otherwise make Keyzone read again and again.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';
import { bumpSerial } from '../../src/services/zones/zones';
import { updateZoneRecord } from '../../src/queries/zone-records';
import { findZoneById } from '../../src/queries/zones';
import { serializeZoneRecord } from '../../src/serialize-zones';

const run = promisify(execFile);
jest.setTimeout(120_000);

let server: TestServer;
let listener: DnsListener;
let alice: CookieClient;
let aliceId: number;
let zone: Json;

beforeAll(async () => {
  server = await startTestServer();
  ({ userId: aliceId } = await server.seedUser({ group: 'IxfrBound', username: 'alice' }));
  alice = await server.login('alice@IxfrBound');
  const ns = await newNameserver(alice, { name: 'ns1.ixfr-bound.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  await addRecord(alice, zone.id, { owner: 'mail', type: 'A', ttl: 300, address: '192.0.2.25' });
  const { deps } = server;
  listener = await startDnsListener({
    ...deps,
    config: { ...deps.config, dns: { ...deps.config.dns, enabled: true, port: 0, transferPeers: { [zone.zone as string]: ['127.0.0.1'] } } },
  });
}, 120_000);
afterAll(async () => {
  await listener?.close();
  await server?.close();
});

async function dig(...args: string[]): Promise<string[]> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(listener.tcpPort!), '+time=10', '+tries=1', '+nocmd', '+nostats', '+noall', '+answer', ...args]);
  return stdout.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l && !l.startsWith(';'));
}
const serialOf = async () => Number((await alice.get(`/zone/${zone.id as number}`)).body.zone.serial);
const isSoa = (line: string) => line.split(' ')[3] === 'SOA';

test('a history much larger than the zone gets the whole zone, not a difference read from all of it', async () => {
  const from = await serialOf();
  const { deps } = server;
  const www = (expectStatus(await alice.get(`/zone/${zone.id as number}/records`), 200).body.zone_record as Json[]).find((r) => String(r.owner).startsWith('www'))!;
  const actor = { userId: aliceId, groupId: 0, isAdmin: false, sessionId: 0 } as never;
  await deps.db.transaction().execute(async (trx) => {
    // The calls the record services make, 300 times in one transaction, ending with the TTL it had: one step.
    const now = deps.clock.now();
    for (let i = 1; i <= 300; i++) {
      const before = await trx.selectFrom('dns.zone_records').selectAll().where('id', '=', www.id as number).executeTakeFirstOrThrow();
      const after = await updateZoneRecord(trx, www.id as number, { ttl: i === 300 ? 300 : 300 + i }, now);
      await deps.audit.record(trx, { actor, objectType: 'zone_record', objectId: www.id as number, action: 'update', before: serializeZoneRecord(before as never), after: serializeZoneRecord(after!) });
    }
    await bumpSerial(trx, (await findZoneById(trx, zone.id as number))!, now);
  });
  const to = await serialOf();
  expect(to).not.toBe(from);
  const answer = await dig(`IXFR=${from}`, zone.zone as string);
  // The AXFR form: SOA, the records, SOA (an incremental answer has the old SOA second).
  expect(isSoa(answer[0]!)).toBe(true);
  expect(isSoa(answer[1]!)).toBe(false);
  expect(new Set(answer)).toEqual(new Set(await dig('AXFR', zone.zone as string)));
});
