import { checkName, exportZone, importZone, parseTtl, textPieces, ZoneRecord } from '../../src/dns';
import { naptrRegexpProblem } from '../../src/dns/types/naptr';
import { tokenize } from '../../src/dns/bind/tokenize';
import { ZONE } from './fixtures';
import { namedCheckzone } from './named-checkzone';
import { fixtureRecords, fixtureZone } from './zone-builder';

const sortKey = (r: ZoneRecord) => `${r.owner} ${r.type} ${JSON.stringify(r.rdata)}`;
const strip = (records: ZoneRecord[]) =>
  records.map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata })).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));

describe('BIND export', () => {
  test('a zone holding every record type passes named-checkzone', () => {
    const text = exportZone(fixtureZone());
    expect(text).toMatch(/^\$ORIGIN example\.com\.\n\$TTL 3600\n@\t3600\tIN\tSOA\tns1\.example\.com\. hostmaster\.example\.com\. 2026112301 86400 7200 1209600 3600\n/);
    expect(text).toContain('@\t3600\tIN\tNS\tns2.example.net.');
    const check = namedCheckzone(ZONE, text);
    expect(check.output).toContain('OK');
    expect(check.ok).toBe(true);
  });

  test('named-checkzone rejects what checkZone rejects (the check is not vacuous)', () => {
    const text = exportZone({ ...fixtureZone(), records: [...fixtureRecords(), { owner: 'www.example.com.', type: 'CNAME', ttl: 3600, rdata: { cname: 'x.example.net.' } }] });
    expect(namedCheckzone(ZONE, text).ok).toBe(false);
  });

  test('what the API refuses in SOA mailboxes and NAPTR regexps is what named-checkzone refuses (issue 27)', () => {
    for (const mailbox of ['host master', 'a;b', 'a(b', 'a)b', 'a"b']) {
      expect(checkName('mailaddr', `${mailbox}.example.com.`, { mailbox: true }).map((e) => e.rule)).toEqual(['mailbox']);
      const text = exportZone({ ...fixtureZone(), soa: { ...fixtureZone().soa, rname: `${mailbox}.example.com.` } });
      expect([mailbox, namedCheckzone(ZONE, text).ok]).toEqual([mailbox, false]);
    }
    const naptr = (regexp: string): ZoneRecord => ({ owner: 'sip.example.com.', type: 'NAPTR', ttl: 60, rdata: { order: 1, preference: 1, flags: 'U', service: 'E2U+sip', regexp, replacement: '.' } });
    for (const regexp of ['!a(b!x!', '!^.*$!x!g']) {
      expect(naptrRegexpProblem(regexp)).toBeDefined();
      expect([regexp, namedCheckzone(ZONE, exportZone({ ...fixtureZone(), records: [naptr(regexp)] })).ok]).toEqual([regexp, false]);
    }
    for (const regexp of ['!^(.*)$!sip:\\1@example.com!', '!^.*$!x!i']) {
      expect(naptrRegexpProblem(regexp)).toBeUndefined();
      expect([regexp, namedCheckzone(ZONE, exportZone({ ...fixtureZone(), records: [naptr(regexp)] })).ok]).toEqual([regexp, true]);
    }
  });

  test('glue for in-zone name servers comes from their addresses; long TXT is split', () => {
    const text = exportZone({
      ...fixtureZone(),
      records: [{ owner: 'long.example.com.', type: 'TXT', ttl: 60, rdata: { data: `"${'x'.repeat(255)}" "${'x'.repeat(45)}"` } }],
    });
    expect(text).toContain('ns1\t3600\tIN\tA\t192.0.2.1');
    expect(text).toContain(`long\t60\tIN\tTXT\t"${'x'.repeat(255)}" "${'x'.repeat(45)}"`);
    expect(namedCheckzone(ZONE, text).ok).toBe(true);
  });
});

describe('BIND export order', () => {
  test('records come in DNSSEC canonical name order, then type, then data', () => {
    const owners = ['b.example.com.', 'a-b.example.com.', 'example.com.', 'z.a.example.com.', 'a.example.com.'];
    const records: ZoneRecord[] = owners.map((owner, i) => ({ owner, type: 'TXT', ttl: 60, rdata: { data: `"t${i}"` } }));
    records.push({ owner: 'a.example.com.', type: 'A', ttl: 60, rdata: { address: '192.0.2.2' } }, { owner: 'a.example.com.', type: 'A', ttl: 60, rdata: { address: '192.0.2.1' } });
    const text = exportZone({ ...fixtureZone(), nameservers: [], records });
    const lines = text.split('\n').filter((l) => /\t(A|TXT)\t/.test(l)).map((l) => l.split('\t').filter((_, i) => i !== 1 && i !== 2).join(' '));
    expect(lines).toEqual([
      '@ TXT "t2"', 'a A 192.0.2.1', 'a A 192.0.2.2', 'a TXT "t4"', 'z.a TXT "t3"', 'a-b TXT "t1"', 'b TXT "t0"',
    ]);
  });
});

describe('BIND import', () => {
  test('import(export(zone)) gives back the same records, SOA and NS', async () => {
    const zone = fixtureZone();
    const result = await importZone(ZONE, exportZone(zone));
    expect(result.errors).toEqual([]);
    expect(result.soa).toMatchObject({ ...zone.soa, mname: 'ns1.example.com.', ttl: 3600 });
    const derived: ZoneRecord[] = [
      { owner: ZONE, type: 'NS', ttl: 3600, rdata: { dname: 'ns1.example.com.' } },
      { owner: ZONE, type: 'NS', ttl: 3600, rdata: { dname: 'ns2.example.net.' } },
    ];
    expect(strip(result.records)).toEqual(strip([...zone.records, ...derived]));
  });

  test('reads $ORIGIN, $TTL, @, relative names, omitted owner/TTL/class, parentheses, quotes, escapes, comments', async () => {
    const text = [
      '; a hand-written zone',
      '$TTL 1h',
      '@ IN SOA ns1 hostmaster (',
      '    2026010101 ; serial',
      '    1d 2h 2w 1h )',
      '  IN NS ns1            ; owner omitted: the apex',
      'ns1 300 A 192.0.2.1',
      '    AAAA 2001:db8::53  ; owner and TTL omitted',
      'txt IN 60 TXT "a \\"quoted\\" (paren) ; not a comment" "\\195\\169"',
      '$ORIGIN sub.example.com.',
      'www CNAME ns1.example.com.',
      'mx MX ( 10',
      '        mail.example.net. )',
      'svc HTTPS 1 . alpn="h2,h3" port=8443',
    ].join('\n');
    const result = await importZone('example.com', text);
    expect(result.errors).toEqual([]);
    expect(result.soa).toMatchObject({ mname: 'ns1.example.com.', rname: 'hostmaster.example.com.', serial: 2026010101, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600 });
    expect(result.records.map(({ line, owner, type, ttl, rdata }) => [line, owner, type, ttl, rdata])).toEqual([
      [6, 'example.com.', 'NS', 3600, { dname: 'ns1.example.com.' }],
      [7, 'ns1.example.com.', 'A', 300, { address: '192.0.2.1' }],
      [8, 'ns1.example.com.', 'AAAA', 3600, { address: '2001:db8::53' }],
      [9, 'txt.example.com.', 'TXT', 60, { data: '"a \\"quoted\\" (paren) ; not a comment" "\\195\\169"' }],
      [11, 'www.sub.example.com.', 'CNAME', 3600, { cname: 'ns1.example.com.' }],
      [12, 'mx.sub.example.com.', 'MX', 3600, { preference: 10, exchange: 'mail.example.net.' }],
      [14, 'svc.sub.example.com.', 'HTTPS', 3600, { priority: 1, target_name: '.', params: 'alpn="h2,h3" port=8443' }],
    ]);
  });

  test('a text/dns body decoded in pieces imports exactly as the whole text, however its bytes were split', async () => {
    const text = [
      '$TTL 1h',
      '@ IN SOA ns1 hostmaster ( 2026010101',
      '    1d 2h 2w 1h )\r',
      '  IN NS ns1\r',
      'ns1 300 A 192.0.2.1',
      'caf\u00e9 TXT "d\u00e9j\u00e0 vu \u2013 \u{1F600}"',
      'esc TXT "first\\',
      'second"',
      'bad A 192.0.2.300',
      'mx MX ( 10',
      '        mail.example.net. )',
      'last TXT "no line end at the end"',
    ].join('\n');
    const whole = await importZone('example.com', text);
    expect(whole.records.length).toBeGreaterThan(4);
    expect(whole.errors.length).toBeGreaterThan(0);
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 5, 8, 13, 64, bytes.length]) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      const pieces = [...textPieces([...chunks])];
      expect(pieces.join('')).toBe(text);
      expect(pieces.slice(0, -1).every((piece) => piece.endsWith('\n') && !piece.endsWith('\\\n'))).toBe(true);
      const split = await importZone('example.com', textPieces(chunks));
      expect({ size, records: split.records, errors: split.errors, soa: split.soa }).toEqual({ size, records: whole.records, errors: whole.errors, soa: whole.soa });
      expect(chunks.every((chunk) => chunk === undefined)).toBe(true); // each chunk released once decoded
    }
  });

  test('without $TTL a record takes the last explicit TTL', async () => {
    const result = await importZone(ZONE, '@ 600 IN SOA ns1.example.net. h.example.com. 1 2 3 4 5\n@ 600 NS ns1.example.net.\na A 192.0.2.1\n');
    expect(result.errors).toEqual([]);
    expect(result.records[1]?.ttl).toBe(600);
  });

  test('returns every bad line with its number and why, and no partial result is usable', async () => {
    const text = [
      '$TTL 3600',                                   // 1
      '@ SOA ns1.example.net. h.example.com. 1 2 3 4 5', // 2
      'a A 192.0.2.300',                              // 3 bad address
      'b MX ten mail.example.net.',                   // 4 bad number
      'c SIG 1 2 3',                                  // 5 unsupported type
      'd CH A 192.0.2.1',                             // 6 class
      'e TXT "unterminated',                          // 7
      '$INCLUDE other.zone',                          // 8
      'f.example.net. A 192.0.2.1',                   // 9 outside the zone
      'g CNAME x.example.net.',                       // 10
      'g A 192.0.2.2',                                // 11 CNAME and other data
      'h A 192.0.2.1 extra',                          // 12 trailing data
      'i 60 A 192.0.2.1',                             // 13
      'i 61 A 192.0.2.2',                             // 14 TTL mismatch
      'j MX ( 10',                                    // 15 never closed
    ].join('\n');
    const result = await importZone(ZONE, text);
    const byLine = Object.fromEntries(result.errors.map((e) => [e.line, e.message]));
    expect(Object.keys(byLine).map(Number)).toEqual([3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15]);
    expect(byLine[3]).toMatch(/address.*IPv4/);
    expect(byLine[4]).toMatch(/preference must be a number/);
    expect(byLine[5]).toMatch(/SIG is not supported/);
    expect(byLine[6]).toMatch(/class CH/);
    expect(byLine[7]).toMatch(/unterminated/);
    expect(byLine[8]).toMatch(/\$INCLUDE is not supported/);
    expect(byLine[9]).toMatch(/outside_zone/);
    expect(byLine[11]).toMatch(/cname_exclusive/);
    expect(byLine[12]).toMatch(/unexpected "extra"/);
    expect(byLine[14]).toMatch(/rrset_ttl; lines 13, 14/);
    expect(byLine[15]).toMatch(/unbalanced "\("/);
  });

  test('a file without SOA, or with two, or with SOA off the apex is refused', async () => {
    expect((await importZone(ZONE, 'a 60 A 192.0.2.1\n')).errors).toEqual([{ line: 1, message: 'the file has no SOA record for example.com.' }]);
    const two = await importZone(ZONE, '@ 60 SOA a.example.net. b.example.net. 1 2 3 4 5\n@ 60 SOA a.example.net. b.example.net. 1 2 3 4 5\n');
    expect(two.errors).toEqual([{ line: 2, message: 'a second SOA record (the first is on line 1)' }]);
    expect((await importZone(ZONE, 'www 60 SOA a.example.net. b.example.net. 1 2 3 4 5\n')).errors[0]?.message).toMatch(/zone apex/);
    expect((await importZone(ZONE, '@ 60 SOA a.example.net. b.example.net. 1 2 3\n')).errors[0]?.message).toMatch(/7 fields/);
    expect((await importZone(ZONE, '@ 60 SOA a.example.net. b.example.net. 4294967295 2147483648 3 4 5\n')).errors[0]?.message).toMatch(/^SOA refresh out of range/);
  });

  test('TTL syntax and the tokenizer edge cases', () => {
    expect(parseTtl('1h30m')).toBe(5400);
    expect(parseTtl('2W')).toBe(1209600);
    expect(parseTtl('h')).toBeUndefined();
    const { entries, errors } = tokenize('a ) b\n"x\\"y" z\\ w\n');
    expect(errors).toEqual([{ line: 1, message: 'unbalanced ")"' }]);
    expect(entries).toEqual([{ line: 2, blankOwner: false, tokens: [{ text: 'x\\"y', quoted: true }, { text: 'z\\ w', quoted: false }] }]);
  });
});
