import {
  canonicalIpv6, checkName, isAbsolute, isInZone, mailboxToRname, nextSerial, parseCharStrings, quoteText, splitText, formatCharStrings,
  relativeTo, splitLabels, toAbsolute, unescapeBytes, wireLength,
} from '../../src/dns';

describe('names', () => {
  test('labels respect escapes; absolute means an unescaped trailing dot', () => {
    expect(splitLabels('a\\.b.example.com.')).toEqual(['a\\.b', 'example', 'com']);
    expect(splitLabels('.')).toEqual([]);
    expect(isAbsolute('www.example.com.')).toBe(true);
    expect(isAbsolute('www')).toBe(false);
    expect(isAbsolute('www\\.')).toBe(false);
    expect(isAbsolute('www\\\\.')).toBe(true);
    expect(wireLength('www.example.com.')).toBe(17);
    expect(wireLength('a\\065b.')).toBe(5);
  });

  test('relative → absolute within a zone, and back', () => {
    expect(toAbsolute('@', 'example.com.')).toBe('example.com.');
    expect(toAbsolute('WWW', 'example.com')).toBe('www.example.com.');
    expect(toAbsolute('mail.example.net.', 'example.com.')).toBe('mail.example.net.');
    expect(relativeTo('example.com.', 'example.com.')).toBe('@');
    expect(relativeTo('a.b.example.com.', 'example.com.')).toBe('a.b');
    expect(relativeTo('example.net.', 'example.com.')).toBe('example.net.');
  });

  test('inside-zone check compares whole labels', () => {
    expect(isInZone('www.example.com.', 'example.com.')).toBe(true);
    expect(isInZone('Example.COM.', 'example.com.')).toBe(true);
    expect(isInZone('badexample.com.', 'example.com.')).toBe(false);
    expect(isInZone('com.', 'example.com.')).toBe(false);
  });

  test('hostname rules', () => {
    expect(checkName('n', '*.example.com.', { wildcard: true })).toEqual([]);
    expect(checkName('n', '0/26.2.0.192.in-addr.arpa.')).toEqual([]);
    expect(checkName('n', 'host\\.master.example.com.', { mailbox: true })).toEqual([]);
    expect(checkName('n', 'host\\.master.example.com.')[0]?.rule).toBe('hostname');
  });
});

describe('addresses and text', () => {
  test('IPv6 is stored in RFC 5952 form', () => {
    expect(canonicalIpv6('2001:DB8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIpv6('::ffff:192.0.2.1')).toBe('::ffff:c000:201');
    expect(canonicalIpv6('::')).toBe('::');
    expect(canonicalIpv6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
  });

  test('character-strings escape quotes, backslashes and non-ASCII bytes, and read back', () => {
    const text = 'say "hi" \\ café\n';
    const quoted = quoteText(text);
    expect(quoted).toBe('"say \\"hi\\" \\\\ caf\\195\\169\\010"');
    expect(unescapeBytes(quoted.slice(1, -1)).toString('utf8')).toBe(text);
    const chunks = splitText('é'.repeat(200));
    expect(chunks.map((c) => c.length)).toEqual([255, 145]);
    expect(parseCharStrings(formatCharStrings(chunks))).toEqual(chunks);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('é'.repeat(200));
    expect(unescapeBytes('🙂').toString('utf8')).toBe('🙂'); // a character outside the BMP stays whole
  });
});

describe('SOA helpers', () => {
  test('serial moves to YYYYMMDD00 on a new day and increments within it', () => {
    const day = new Date('2026-11-23T10:00:00Z');
    expect(nextSerial(1, day)).toBe(2026112300);
    expect(nextSerial(2026112300, day)).toBe(2026112301);
    expect(nextSerial(2026112399, day)).toBe(2026112400);
    expect(nextSerial(2026120100, day)).toBe(2026120101);
  });
  test('mailbox → RNAME escapes dots in the local part', () => {
    expect(mailboxToRname('hostmaster@example.com')).toBe('hostmaster.example.com.');
    expect(mailboxToRname('john.doe@Example.com')).toBe('john\\.doe.example.com.');
    expect(mailboxToRname('hostmaster.example.com.')).toBe('hostmaster.example.com.');
  });
});
