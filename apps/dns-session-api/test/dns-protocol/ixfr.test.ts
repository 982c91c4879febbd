// Incremental zone transfers (IXFR, RFC 1995; issue 44) from Keyzone's history, read with dig: after an add, a
// delete and a change, `dig IXFR=<old serial>` shows the incremental form (the new SOA first and last, an old/new SOA
// pair per change) and applying it to the zone as it was gives what AXFR gives now; a change made in one transaction
// that advanced the serial twice is one consistent step; a serial the history does not hold, or a nameserver change
// the records' history cannot explain, gets the whole zone; over UDP the answer is incremental when it fits, else the
// SOA alone (RFC 1995 §2).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';
import { bumpSerial } from '../../src/services/zones/zones';
import { insertZoneRecord, updateZoneRecord } from '../../src/queries/zone-records';
import { findZoneById } from '../../src/queries/zones';
import { serializeZoneRecord } from '../../src/serialize-zones';

const run = promisify(execFile);
jest.setTimeout(120_000);

let server: TestServer;
let listener: DnsListener;
let alice: CookieClient;
let aliceId: number;
let ns: Json;
let zone: Json;
let other: Json;

beforeAll(async () => {
  server = await startTestServer();
  ({ userId: aliceId } = await server.seedUser({ group: 'Ixfr', username: 'alice' }));
  alice = await server.login('alice@Ixfr');
  ns = await newNameserver(alice, { name: 'ns1.ixfr.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  other = await newZone(alice, { nameservers: [ns.id] });
  for (const z of [zone, other]) {
    await addRecord(alice, z.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
    await addRecord(alice, z.id, { owner: 'old', type: 'A', ttl: 300, address: '192.0.2.11' });
    await addRecord(alice, z.id, { owner: 'txt', type: 'TXT', ttl: 300, data: '"first" "version"' });
  }
  const { deps } = server;
  listener = await startDnsListener({
    ...deps,
    config: { ...deps.config, dns: { ...deps.config.dns, enabled: true, port: 0, transferPeers: { [zone.zone as string]: ['127.0.0.1'], [other.zone as string]: ['127.0.0.1'] } } },
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

const serialOf = async (z: Json) => Number((await alice.get(`/zone/${z.id as number}`)).body.zone.serial);
const isSoa = (line: string) => line.split(' ')[3] === 'SOA';
const soaSerial = (line: string) => Number(line.split(' ')[6]);
const recordsOf = (lines: string[]) => new Set(lines.filter((l) => !isSoa(l)));

/** An IXFR answer in its parts (RFC 1995 §4), or undefined when it has the AXFR form. */
function parseIxfr(lines: string[]): { serial: number; steps: Array<{ from: number; to: number; deleted: string[]; added: string[] }> } | undefined {
  expect(isSoa(lines[0]!)).toBe(true);
  expect(isSoa(lines.at(-1)!)).toBe(true);
  const serial = soaSerial(lines[0]!);
  expect(soaSerial(lines.at(-1)!)).toBe(serial);
  if (lines.length < 3 || !isSoa(lines[1]!)) return undefined; // SOA, records…, SOA: the whole zone
  const steps: Array<{ from: number; to: number; deleted: string[]; added: string[] }> = [];
  let i = 1;
  while (i < lines.length - 1) {
    const step = { from: soaSerial(lines[i]!), to: 0, deleted: [] as string[], added: [] as string[] };
    for (i++; !isSoa(lines[i]!); i++) step.deleted.push(lines[i]!);
    step.to = soaSerial(lines[i]!);
    for (i++; i < lines.length - 1 && !isSoa(lines[i]!); i++) step.added.push(lines[i]!);
    steps.push(step);
  }
  return { serial, steps };
}

function apply(start: Set<string>, steps: Array<{ deleted: string[]; added: string[] }>): Set<string> {
  const out = new Set(start);
  for (const s of steps) {
    for (const d of s.deleted) {
      expect(out.has(d)).toBe(true); // a deletion names a record the old version held
      out.delete(d);
    }
    for (const a of s.added) out.add(a);
  }
  return out;
}

const name = (z: Json) => z.zone as string;

describe('IXFR from the history', () => {
  it('gives the add, the delete and the change as three steps whose application equals AXFR', async () => {
    const before = await dig('AXFR', name(zone));
    const from = await serialOf(zone);
    const records = expectStatus(await alice.get(`/zone/${zone.id as number}/records`), 200).body.zone_record as Json[];
    const byOwner = (owner: string) => records.find((r) => (r.owner as string).startsWith(`${owner}.`) || r.owner === owner)!;
    const serials = [from];
    await addRecord(alice, zone.id, { owner: 'new', type: 'AAAA', ttl: 600, address: '2001:db8::1' });
    serials.push(await serialOf(zone));
    expectStatus(await alice.delete(`/zone_record/${byOwner('old').id as number}`), 200);
    serials.push(await serialOf(zone));
    expectStatus(await alice.put(`/zone_record/${byOwner('txt').id as number}`, { data: '"second" "version"' }), 200);
    serials.push(await serialOf(zone));

    const ixfr = parseIxfr(await dig(`IXFR=${from}`, name(zone)));
    expect(ixfr).toBeDefined();
    expect(ixfr!.serial).toBe(serials[3]);
    expect(ixfr!.steps.map((s) => [s.from, s.to])).toEqual([[serials[0], serials[1]], [serials[1], serials[2]], [serials[2], serials[3]]]);
    const z = name(zone);
    expect(ixfr!.steps[0]).toMatchObject({ deleted: [], added: [`new.${z} 600 IN AAAA 2001:db8::1`] });
    expect(ixfr!.steps[1]).toMatchObject({ deleted: [`old.${z} 300 IN A 192.0.2.11`], added: [] });
    expect(ixfr!.steps[2]).toMatchObject({ deleted: [`txt.${z} 300 IN TXT "first" "version"`], added: [`txt.${z} 300 IN TXT "second" "version"`] });

    const after = await dig('AXFR', name(zone));
    expect(apply(recordsOf(before), ixfr!.steps)).toEqual(recordsOf(after));
    // From the middle of the history: the last two steps only.
    const later = parseIxfr(await dig(`IXFR=${serials[1]!}`, name(zone)));
    expect(later!.steps.map((s) => s.from)).toEqual([serials[1], serials[2]]);
    // A client at the current serial (or ahead of it) gets the SOA alone.
    const current = await dig(`IXFR=${serials[3]!}`, name(zone));
    expect(current).toHaveLength(1);
    expect(soaSerial(current[0]!)).toBe(serials[3]);
  });

  it('gives the changes of one transaction that advanced the serial twice as one step', async () => {
    const from = await serialOf(zone);
    const { deps } = server;
    const www = (expectStatus(await alice.get(`/zone/${zone.id as number}/records`), 200).body.zone_record as Json[]).find((r) => String(r.owner).startsWith('www'))!;
    const actor = { userId: aliceId, groupId: 0, isAdmin: false, sessionId: 0 } as never;
    await deps.db.transaction().execute(async (trx) => {
      // The same calls the record services make (insert, history entry, serial), twice in one transaction.
      const now = deps.clock.now();
      const row = await insertZoneRecord(trx, { zone_id: zone.id as number, owner: `two.${name(zone)}`, type: 'A', ttl: 300, rdata: { address: '192.0.2.22' }, description: '' }, now);
      await deps.audit.record(trx, { actor, objectType: 'zone_record', objectId: row.id, action: 'create', before: null, after: serializeZoneRecord(row) });
      await bumpSerial(trx, (await findZoneById(trx, zone.id as number))!, now);
      const old = (await trx.selectFrom('dns.zone_records').selectAll().where('id', '=', www.id as number).executeTakeFirstOrThrow());
      const gone = await updateZoneRecord(trx, www.id as number, { deleted_at: now }, now);
      await deps.audit.record(trx, { actor, objectType: 'zone_record', objectId: www.id as number, action: 'delete', before: serializeZoneRecord(old as never), after: serializeZoneRecord(gone!) });
      const bumped = (await findZoneById(trx, zone.id as number))!;
      await bumpSerial(trx, bumped, new Date(now.getTime() + 1000));
    });
    const to = await serialOf(zone);
    const ixfr = parseIxfr(await dig(`IXFR=${from}`, name(zone)));
    const z = name(zone);
    expect(ixfr!.steps).toEqual([{ from, to, deleted: [`www.${z} 300 IN A 192.0.2.10`], added: [`two.${z} 300 IN A 192.0.2.22`] }]);
  });

  it('gives the whole zone for a serial it does not hold and when a nameserver change is not in the records\' history', async () => {
    const axfr = await dig('AXFR', name(other));
    const unknown = await dig('IXFR=12345', name(other));
    expect(parseIxfr(unknown)).toBeUndefined();
    expect(recordsOf(unknown)).toEqual(recordsOf(axfr));

    const from = await serialOf(other);
    const ns2 = await newNameserver(alice, { name: 'ns2.ixfr.test.' });
    expectStatus(await alice.put(`/zone/${other.id as number}`, { nameservers: [ns.id, ns2.id] }), 200);
    const full = await dig(`IXFR=${from}`, name(other));
    expect(parseIxfr(full)).toBeUndefined();
    expect(recordsOf(full)).toEqual(recordsOf(await dig('AXFR', name(other))));
    expect([...recordsOf(full)].some((l) => l.endsWith('NS ns2.ixfr.test.'))).toBe(true);
  });

  it('answers over UDP incrementally when the difference fits, else with the SOA alone', async () => {
    const from = await serialOf(zone);
    await addRecord(alice, zone.id, { owner: 'udp', type: 'A', ttl: 300, address: '192.0.2.30' });
    const small = parseIxfr(await dig('+notcp', `IXFR=${from}`, name(zone)));
    expect(small!.steps).toEqual([{ from, to: await serialOf(zone), deleted: [], added: [`udp.${name(zone)} 300 IN A 192.0.2.30`] }]);

    const big = await serialOf(zone);
    for (let i = 0; i < 12; i++) await addRecord(alice, zone.id, { owner: `bulk${i}`, type: 'TXT', ttl: 300, data: `"${'x'.repeat(40)}"` });
    const soaAlone = await dig('+notcp', `IXFR=${big}`, name(zone));
    expect(soaAlone).toHaveLength(1);
    expect(soaSerial(soaAlone[0]!)).toBe(await serialOf(zone));
    // Over TCP the same question gets every step.
    expect(parseIxfr(await dig(`IXFR=${big}`, name(zone)))!.steps).toHaveLength(12);
  });
});
