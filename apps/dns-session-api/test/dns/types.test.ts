import { rdataFromBind, rdataToBind, recordTypes, RECORD_TYPES, validateRdata, validateRecord } from '../../src/dns';
import type { RecordType, Token } from '../../src/dns';
import { typeFixtures, ZONE } from './fixtures';

// A crude tokenizer for fixture text: quoted strings and words (the real one is tested in bind.test.ts).
function tokens(text: string): Token[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? { text: m[1], quoted: true } : { text: m[2] as string, quoted: false });
}

describe('record type modules', () => {
  test('there is one fixture per supported type', () => {
    expect(typeFixtures.map((f) => f.type).sort()).toEqual([...RECORD_TYPES].sort());
  });

  test.each(typeFixtures.map((f) => [f.type, f] as const))('%s: metadata, validation, BIND out and in', (type, f) => {
    const def = recordTypes[type];
    expect(def.type).toBe(type);
    expect(def.code).toBeGreaterThan(0);
    expect(def.rfcs.length).toBeGreaterThan(0);
    const { rdata, errors } = validateRdata(type, f.input);
    expect(errors).toEqual([]);
    expect(rdata).toEqual(f.stored ?? f.input);
    expect(rdataToBind(type, rdata!)).toBe(f.bind);
    const parsed = rdataFromBind(type, tokens(f.bind), ZONE);
    expect(validateRdata(type, parsed).rdata).toEqual(rdata);
  });

  test('type codes are the IANA ones', () => {
    const codes = Object.fromEntries(RECORD_TYPES.map((t) => [t, recordTypes[t].code]));
    expect(codes).toEqual({
      A: 1, NS: 2, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, NAPTR: 35, DS: 43, SSHFP: 44,
      TLSA: 52, SVCB: 64, HTTPS: 65, CAA: 257,
    });
  });
});

const good = (type: RecordType) => typeFixtures.find((f) => f.type === type)!.input;

// Every rule a record can break, with one failing case each: [type, changes, field, rule].
const failing: Array<[RecordType, Record<string, unknown>, string, string]> = [
  ['A', { address: undefined }, 'address', 'required'],
  ['A', { address: '192.0.2.256' }, 'address', 'ipv4'],
  ['A', { address: '192.0.2.01' }, 'address', 'ipv4'],
  ['A', { address: 7 }, 'address', 'string'],
  ['A', { extra: 1 }, 'extra', 'unknown_field'],
  ['AAAA', { address: '2001:db8::1::2' }, 'address', 'ipv6'],
  ['AAAA', { address: '192.0.2.1' }, 'address', 'ipv6'],
  ['CNAME', { cname: 'www.example.com' }, 'cname', 'fqdn'],
  ['CNAME', { cname: '192.0.2.1.' }, 'cname', 'not_ip'],
  ['CNAME', { cname: 'we!rd.example.com.' }, 'cname', 'hostname'],
  ['CNAME', { cname: `${'a'.repeat(64)}.example.com.` }, 'cname', 'label_length'],
  ['CNAME', { cname: `${'abcdefghi.'.repeat(26)}` }, 'cname', 'name_length'],
  ['CNAME', { cname: 'a..example.com.' }, 'cname', 'empty_label'],
  ['CNAME', { cname: '.' }, 'cname', 'root'],
  ['CNAME', { cname: 'a.*.example.com.' }, 'cname', 'wildcard'],
  ['MX', { preference: 65536 }, 'preference', 'uint16'],
  ['MX', { preference: 1.5 }, 'preference', 'uint16'],
  ['MX', { preference: '10' }, 'preference', 'uint16'],
  ['MX', { exchange: 'mail_1.example.com.' }, 'exchange', 'hostname_ldh'],
  ['MX', { preference: 10, exchange: '.' }, 'preference', 'null_mx'],
  ['NS', { dname: 'ns1.example.com' }, 'dname', 'fqdn'],
  ['NS', { dname: '-ns.example.com.' }, 'dname', 'hostname_ldh'],
  ['PTR', { dname: 'host' }, 'dname', 'fqdn'],
  ['SRV', { port: -1 }, 'port', 'uint16'],
  ['SRV', { target: '192.0.2.1' }, 'target', 'not_ip'],
  ['SRV', { target: '_sip.example.com.' }, 'target', 'hostname_ldh'],
  ['TXT', { data: 'x'.repeat(70000) }, 'data', 'txt_length'],
  ['TXT', { data: undefined }, 'data', 'required'],
  ['CAA', { flags: 1 }, 'flags', 'caa_flags'],
  ['CAA', { flags: 256 }, 'flags', 'uint8'],
  ['CAA', { tag: 'Issue' }, 'tag', 'caa_tag'],
  ['CAA', { tag: 'two words' }, 'tag', 'word'],
  ['CAA', { tag: 'iodef', value: 'ftp://x' }, 'value', 'caa_iodef'],
  ['DS', { algorithm: 0 }, 'algorithm', 'ds_algorithm'],
  ['DS', { digest_type: 9 }, 'digest_type', 'ds_digest_type'],
  ['DS', { digest: 'abcd' }, 'digest', 'digest_length'],
  ['DS', { digest: 'xyz0' }, 'digest', 'hex'],
  ['SSHFP', { algorithm: 5 }, 'algorithm', 'sshfp_algorithm'],
  ['SSHFP', { fptype: 3 }, 'fptype', 'sshfp_fptype'],
  ['SSHFP', { fptype: 1 }, 'fingerprint', 'fingerprint_length'],
  ['TLSA', { certificate_usage: 4 }, 'certificate_usage', 'tlsa_usage'],
  ['TLSA', { selector: 2 }, 'selector', 'tlsa_selector'],
  ['TLSA', { matching_type: 3 }, 'matching_type', 'tlsa_matching_type'],
  ['TLSA', { matching_type: 2 }, 'certificate_association_data', 'tlsa_data_length'],
  ['NAPTR', { flags: 'U!' }, 'flags', 'naptr_flags'],
  ['NAPTR', { replacement: 'sip.example.com.' }, 'replacement', 'naptr_regexp_or_replacement'],
  ['NAPTR', { service: 'x'.repeat(256) }, 'service', 'charstring_length'],
  ['HTTPS', { priority: 0 }, 'params', 'svcb_alias_params'],
  ['HTTPS', { params: 'colour=blue' }, 'params', 'svcb_key'],
  ['HTTPS', { params: 'port=1 port=2' }, 'params', 'svcb_duplicate_key'],
  ['HTTPS', { params: 'port=99999' }, 'params', 'svcb_value'],
  ['SVCB', { params: 'ipv4hint=1.2.3' }, 'params', 'svcb_value'],
  ['SVCB', { params: 'ipv6hint=zz::1' }, 'params', 'svcb_value'],
  ['SVCB', { params: 'alpn=h2 no-default-alpn=1' }, 'params', 'svcb_value'],
  ['SVCB', { params: 'mandatory=port alpn=h2' }, 'params', 'svcb_mandatory'],
  ['SVCB', { params: 'no-default-alpn' }, 'params', 'svcb_no_default_alpn'],
];

describe('per-type validation rules (reference §7.2)', () => {
  test.each(failing)('%s %j breaks %s/%s', (type, changes, field, rule) => {
    const input: Record<string, unknown> = { ...good(type), ...changes };
    for (const [k, v] of Object.entries(changes)) if (v === undefined) delete input[k];
    const { rdata, errors } = validateRdata(type, input);
    expect(rdata).toBeUndefined();
    expect(errors).toContainEqual(expect.objectContaining({ field, rule }));
    expect(errors.every((e) => e.message.length > 0)).toBe(true);
  });

  test('every field error is reported, not just the first', () => {
    const { errors } = validateRdata('SRV', { priority: -1, weight: 'x', port: 70000, target: 'nope' });
    expect(errors.map((e) => e.field)).toEqual(['priority', 'weight', 'port', 'target']);
  });

  test('SvcParams are stored in key order; AliasMode takes no params', () => {
    expect(validateRdata('HTTPS', { priority: 0, target_name: 'pool.example.net.' }).rdata).toEqual({
      priority: 0, target_name: 'pool.example.net.', params: '',
    });
    expect(validateRdata('SVCB', { priority: 2, target_name: '.', params: 'ech=AEn+/w== mandatory=alpn alpn=h3 key667=x' }).rdata?.params)
      .toBe('mandatory=alpn alpn=h3 ech=AEn+/w== key667=x');
  });

  test('null MX and SRV "no service" accept the root', () => {
    expect(validateRdata('MX', { preference: 0, exchange: '.' }).errors).toEqual([]);
    expect(validateRdata('SRV', { priority: 0, weight: 0, port: 0, target: '.' }).errors).toEqual([]);
  });
});

describe('validateRecord (owner, ttl, type)', () => {
  const base = { owner: 'www', type: 'A', ttl: 300, rdata: { address: '192.0.2.1' } };
  test('relative owners become absolute; "@" is the apex; names are lowercased', () => {
    expect(validateRecord(ZONE, base).record?.owner).toBe('www.example.com.');
    expect(validateRecord(ZONE, { ...base, owner: '@' }).record?.owner).toBe('example.com.');
    expect(validateRecord(ZONE, { ...base, owner: 'WWW.Example.COM.' }).record?.owner).toBe('www.example.com.');
    expect(validateRecord(ZONE, { ...base, owner: '*.dyn' }).record?.owner).toBe('*.dyn.example.com.');
    expect(validateRecord(ZONE, { ...base, type: 'a' }).record?.type).toBe('A');
  });
  test.each([
    [{ ttl: -1 }, 'ttl', 'ttl'],
    [{ ttl: 2147483648 }, 'ttl', 'ttl'],
    [{ type: 'HINFO' }, 'type', 'type'],
    [{ owner: '' }, 'owner', 'required'],
    [{ owner: 'a.*' }, 'owner', 'wildcard'],
    [{ owner: 'bad name' }, 'owner', 'hostname'],
    [{ owner: '_under' }, 'owner', 'hostname_ldh'],
    [{ owner: '1.2.0.192.in-addr.arpa.', type: 'PTR', rdata: { dname: '_x.example.com.' } }, 'dname', 'hostname_ldh'],
  ])('%j breaks %s/%s', (changes, field, rule) => {
    const { record, errors } = validateRecord(ZONE, { ...base, ...changes });
    expect(record).toBeUndefined();
    expect(errors).toContainEqual(expect.objectContaining({ field, rule }));
  });
});
