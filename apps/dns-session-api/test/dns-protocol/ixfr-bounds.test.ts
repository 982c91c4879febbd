// IXFR's work is bounded by the zone's size, reviewed for issue 44: the history of the steps asked for is read before
// the difference is measured, so a zone whose history is much larger than the zone itself (here: one transaction
// that changed a record hundreds of times, as a zone rewritten whole at each serial would) is answered with the whole
// zone, which any transfer peer could otherwise make Keyzone read again and again. And the paths other than the
// session API (the PowerDNS API token's PATCH, an RFC 2136 UPDATE that touches one record twice) leave a history
// whose incremental answer, applied to the old zone, gives what AXFR gives now.
import { execFile, spawn } from 'node:child_process';
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

/** An incremental answer applied to the old zone (RFC 1995 §4): per step, the deletions then the additions. */
function applied(before: string[], answer: string[]): Set<string> {
  const held = new Set(before.filter((l) => !isSoa(l)));
  let adding = true; // each step opens with its old SOA, which starts the deletions
  for (const line of answer.slice(1, -1)) {
    if (isSoa(line)) { adding = !adding; continue; }
    if (adding) held.add(line);
    else {
      expect(held.has(line)).toBe(true);
      held.delete(line);
    }
  }
  return held;
}

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

test('changes through the PowerDNS API (a TTL change, an RRset replaced by itself, one deleted) give an IXFR that applied equals AXFR', async () => {
  const token = expectStatus(await alice.post(`/user/${aliceId}/tokens`, { name: 'ixfr' }), 201).body.api_token.token as string;
  const patch = async (rrsets: unknown[]) => {
    const res = await fetch(`${server.url}/api/v1/servers/localhost/zones/${zone.zone as string}`, {
      method: 'PATCH', headers: { 'x-api-key': token, 'content-type': 'application/json' }, body: JSON.stringify({ rrsets }),
    });
    expect(res.status).toBe(204);
  };
  const z = zone.zone as string;
  // Enough records that the difference is not larger than the zone (else the whole zone is the answer).
  for (let i = 0; i < 8; i++) await addRecord(alice, zone.id, { owner: `h${i}`, type: 'A', ttl: 300, address: `192.0.2.${100 + i}` });
  const before = await dig('AXFR', z);
  const from = await serialOf();
  await patch([{ name: `www.${z}`, type: 'A', ttl: 900, changetype: 'REPLACE', records: [{ content: '192.0.2.10', disabled: false }, { content: '192.0.2.11', disabled: false }] }]);
  await patch([{ name: `mail.${z}`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.25', disabled: false }] }]);
  await patch([{ name: `mail.${z}`, type: 'A', changetype: 'DELETE' }, { name: `txt.${z}`, type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: '"a" "b"', disabled: false }] }]);
  const after = await dig('AXFR', z);
  const answer = await dig(`IXFR=${from}`, z);
  expect(isSoa(answer[1]!)).toBe(true); // the incremental form
  expect(applied(before, answer)).toEqual(new Set(after.filter((l) => !isSoa(l))));
});

test('an RFC 2136 UPDATE that deletes a record and adds it back re-timed, and adds then deletes another, in one message, gives an IXFR that applied equals AXFR', async () => {
  const key = expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, { name: 'ixfr.upd', algorithm: 'hmac-sha256' }), 201).body.tsig_key as Json;
  const z = (zone.zone as string).replace(/\.$/, '');
  const before = await dig('AXFR', z);
  const from = await serialOf();
  const out = await new Promise<{ code: number; text: string }>((resolve) => {
    const child = spawn('nsupdate', ['-v', '-y', `hmac-sha256:${key.name as string}:${key.secret as string}`]);
    let text = '';
    child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { text += d.toString(); });
    child.on('close', (code) => resolve({ code: code ?? -1, text }));
    child.stdin.end([`server 127.0.0.1 ${listener.tcpPort!}`, `zone ${z}`,
      `update delete h1.${z} A`, `update add h1.${z} 120 A 192.0.2.101`,
      `update add tmp.${z} 60 A 192.0.2.200`, `update delete tmp.${z} A 192.0.2.200`,
      `update add h2.${z} 300 A 192.0.2.202`, 'send', ''].join('\n'));
  });
  expect(out).toMatchObject({ code: 0 });
  expect(await serialOf()).not.toBe(from);
  const after = await dig('AXFR', z);
  const answer = await dig(`IXFR=${from}`, z);
  expect(isSoa(answer[1]!)).toBe(true);
  expect(applied(before, answer)).toEqual(new Set(after.filter((l) => !isSoa(l))));
});
