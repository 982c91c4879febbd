// Issue 12: TXT data is a list of character-strings of bytes, and import, API, storage and export keep every
// string and byte exactly (RFC 1035 §5.1 escapes), including where a long text was split.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, newZone, uniqueZone, type Json } from '../zones/dns-client';

let t: TestServer;
let user: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  await t.seedUser({ group: 'txt.example', username: 'tex' });
  user = await t.login('tex@txt.example');
});
afterAll(async () => t?.close());

const SPLIT = `"${'x'.repeat(100)}" "${'y'.repeat(200)}"`;
const LINES = {
  punct: '"semi;colon" "quote\\"q" "paren("',
  bytes: '"\\255\\000ok" "caf\\195\\169"',
  split: SPLIT,
  empty: '""',
};

async function recordsOf(zoneId: number): Promise<Json[]> {
  return expectStatus(await user.get(`/zone/${zoneId}/records`), 200).body.zone_record;
}

it('import → API → export keeps every string and byte', async () => {
  const zone = uniqueZone('txt');
  const file = [
    '$TTL 3600',
    '@ SOA ns1.example.net. hostmaster.example.net. 1 86400 7200 1209600 3600',
    '@ NS ns1.example.net.',
    ...Object.entries(LINES).map(([owner, data]) => `${owner} TXT ${data}`),
  ].join('\n');
  const imported = expectStatus(await user.request('POST', `/zone/import?zone=${zone}`, { raw: `${file}\n`, headers: { 'content-type': 'text/dns' } }), 201);
  const records = await recordsOf(imported.body.zone.id);
  const byOwner = Object.fromEntries(records.filter((r) => r.type === 'TXT').map((r) => [r.owner.split('.')[0], r]));
  expect(byOwner.punct.strings).toEqual(['semi;colon', 'quote\\"q', 'paren(']);
  expect(byOwner.punct.data).toBe('semi;colonquote"qparen(');
  expect(byOwner.bytes.strings).toEqual(['\\255\\000ok', 'café']);
  expect(byOwner.split.strings).toEqual(['x'.repeat(100), 'y'.repeat(200)]);
  expect(byOwner.empty.strings).toEqual(['']);

  const exported = expectStatus(await user.get(`/zone/${imported.body.zone.id}/export`), 200).text;
  for (const [owner, data] of Object.entries(LINES)) {
    const expected = owner === 'bytes' ? '"\\255\\000ok" "caf\\195\\169"' : data;
    expect(exported).toContain(`${owner}\t3600\tIN\tTXT\t${expected}\n`);
  }
});

it('the API takes plain text (split at 255 octets) or "quoted" "strings" (taken exactly), and gives both back', async () => {
  const zone = await newZone(user);
  const exact = expectStatus(await user.post('/zone_record', { zid: zone.id, owner: 'a', type: 'TXT', data: LINES.punct }), 201).body.zone_record;
  expect(exact.strings).toEqual(['semi;colon', 'quote\\"q', 'paren(']);
  // What the API shows in `strings` can be sent back, quoted, and means the same bytes.
  const again = expectStatus(await user.put(`/zone_record/${exact.id}`, { data: exact.strings.map((s: string) => `"${s}"`).join(' ') }), 200).body.zone_record;
  expect(again.strings).toEqual(exact.strings);
  const plain = expectStatus(await user.post('/zone_record', { zid: zone.id, owner: 'b', type: 'TXT', data: 'z'.repeat(300) }), 201).body.zone_record;
  expect(plain.strings).toEqual(['z'.repeat(255), 'z'.repeat(45)]);
  expect(plain.data).toBe('z'.repeat(300));
  const bad = await user.post('/zone_record', { zid: zone.id, owner: 'c', type: 'TXT', data: '"unterminated' });
  expect(bad.status).toBe(400);
  expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'data', rule: 'charstrings' })]);
  const long = await user.post('/zone_record', { zid: zone.id, owner: 'c', type: 'TXT', data: `"${'q'.repeat(256)}"` });
  expect(long.status).toBe(400);
  expect(long.body.errors).toEqual([expect.objectContaining({ field: 'data', rule: 'charstring_length' })]);
});
