import { rdataFromBind, rdataToBind, recordTypes, RECORD_TYPES, validateRdata, validateRecord } from '../../src/dns';
import type { Token } from '../../src/dns';
import { failingRdata as failing, goodRdata, typeFixtures, ZONE } from './fixtures';

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
      DNAME: 39, LOC: 29, URI: 256, CERT: 37, DNSKEY: 48, OPENPGPKEY: 61, SMIMEA: 53, HINFO: 13, RP: 17, SPF: 99,
      IPSECKEY: 45, DHCID: 49, HIP: 55, KX: 36, APL: 42,
    });
  });

  test('CERT takes RFC 4398\'s type mnemonics and DNSSEC algorithm mnemonics, in the API and in zone files, stored as numbers', () => {
    const certificate = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A';
    const mnemonics = [['PKIX', 1], ['spki', 2], ['PGP', 3], ['IPKIX', 4], ['ISPKI', 5], ['IPGP', 6], ['ACPKIX', 7], ['IACPKIX', 8], ['URI', 253], ['OID', 254]] as const;
    for (const [mnemonic, number] of mnemonics) {
      expect(validateRdata('CERT', { cert_type: mnemonic, key_tag: 1, algorithm: 'ECDSAP256SHA256', certificate }).rdata)
        .toEqual({ cert_type: number, key_tag: 1, algorithm: 13, certificate });
    }
    const parsed = rdataFromBind('CERT', tokens(`PGP 12345 RSASHA256 ${certificate}`), ZONE);
    expect(validateRdata('CERT', parsed).rdata).toEqual({ cert_type: 3, key_tag: 12345, algorithm: 8, certificate });
    expect(validateRdata('CERT', rdataFromBind('CERT', tokens(`3 12345 8 ${certificate}`), ZONE)).rdata).toEqual(validateRdata('CERT', parsed).rdata);
    expect(() => rdataFromBind('CERT', tokens(`X509 0 0 ${certificate}`), ZONE)).toThrow(/cert_type must be a number/);
  });

  test('IPSECKEY: no gateway, IPv4 and IPv6 gateways, a relative gateway name, and no key with algorithm 0 (RFC 4025 §3.3)', () => {
    const read = (text: string) => validateRdata('IPSECKEY', rdataFromBind('IPSECKEY', tokens(text), ZONE));
    expect(read('10 0 2 . AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==').rdata?.gateway).toBe('.');
    expect(read('10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==').rdata?.gateway).toBe('192.0.2.38');
    expect(read('10 2 2 2001:0DB8:0:8002::2000:1 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==').rdata?.gateway).toBe('2001:db8:0:8002::2000:1');
    expect(read('10 3 2 gw AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==').rdata?.gateway).toBe('gw.example.com.');
    const keyless = read('10 1 0 192.0.2.3');
    expect(keyless.rdata).toEqual({ precedence: 10, gateway_type: 1, algorithm: 0, gateway: '192.0.2.3', public_key: '' });
    expect(rdataToBind('IPSECKEY', keyless.rdata!)).toBe('10 1 0 192.0.2.3');
  });

  test('HIP without rendezvous servers; HIP goes to PowerDNS in the generic form (it lacks the type)', () => {
    const rdata = validateRdata('HIP', { pk_algorithm: 2, hit: '200100107b1a74df365639cc39f1d578', public_key: 'AwEAAQ==' }).rdata!;
    expect(rdata.rendezvous_servers).toBe('');
    expect(rdataToBind('HIP', rdata)).toBe('2 200100107b1a74df365639cc39f1d578 AwEAAQ==');
    expect(validateRdata('HIP', rdataFromBind('HIP', tokens('2 200100107b1a74df365639cc39f1d578 AwEAAQ=='), ZONE)).rdata).toEqual(rdata);
    // hit length 16, algorithm 2, key length 4, the HIT, the key, one name in wire form
    const wire = recordTypes.HIP.genericWire!({ ...rdata, rendezvous_servers: 'rvs.example.' });
    expect(wire.toString('hex')).toBe('10020004200100107b1a74df365639cc39f1d5780301000103727673076578616d706c6500');
  });

  test('RRSIG, NSEC, NSEC3 and NSEC3PARAM are refused as the signer\'s, other unknown types as unknown', () => {
    for (const type of ['RRSIG', 'NSEC', 'NSEC3', 'nsec3param']) {
      const { errors } = validateRecord(ZONE, { owner: '@', type, ttl: 300, rdata: {} });
      expect(errors).toEqual([expect.objectContaining({ field: 'type', rule: 'type', message: expect.stringMatching(/made by the DNSSEC signer when a zone is signed/) })]);
    }
    expect(validateRecord(ZONE, { owner: '@', type: 'WKS', ttl: 300, rdata: {} }).errors[0]?.message).toMatch(/^type WKS is not one Keyzone manages/);
  });
});

describe('per-type validation rules (reference §7.2)', () => {
  test.each(failing)('%s %j breaks %s/%s', (type, changes, field, rule) => {
    const input: Record<string, unknown> = { ...goodRdata(type), ...changes };
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
    [{ type: 'SIG' }, 'type', 'type'],
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
