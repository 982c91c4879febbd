import { checkRRset, checkZone, validateRecord, ZoneRecord } from '../../src/dns';
import { ZONE } from './fixtures';
import { fixtureRecords } from './zone-builder';

const rec = (owner: string, type: string, rdata: Record<string, unknown>, ttl = 300): ZoneRecord => {
  const { record, errors } = validateRecord(ZONE, { owner, type, ttl, rdata });
  if (!record) throw new Error(JSON.stringify(errors));
  return record;
};
const rules = (records: ZoneRecord[]) => checkZone(ZONE, records).map((e) => e.rule).sort();

describe('checkZone (reference §7.3)', () => {
  test('the fixture zone holding every type is clean', () => {
    expect(checkZone(ZONE, fixtureRecords())).toEqual([]);
  });

  test('CNAME alone at its owner', () => {
    const errors = checkZone(ZONE, [rec('www', 'CNAME', { cname: 'x.example.net.' }), rec('www', 'A', { address: '192.0.2.1' })]);
    expect(errors).toEqual([expect.objectContaining({ owner: 'www.example.com.', type: 'CNAME', field: 'type', rule: 'cname_exclusive', records: [0, 1] })]);
    expect(errors[0]?.message).toMatch(/^RRset www\.example\.com\. IN CNAME: .*A/);
  });

  test('at most one CNAME per owner', () => {
    expect(rules([rec('www', 'CNAME', { cname: 'a.example.net.' }), rec('www', 'CNAME', { cname: 'b.example.net.' })])).toEqual(['cname_single']);
  });

  test('no CNAME at the apex', () => {
    expect(rules([rec('@', 'CNAME', { cname: 'a.example.net.' })])).toEqual(['cname_at_apex']);
  });

  test('one TTL per RRset', () => {
    expect(rules([rec('www', 'A', { address: '192.0.2.1' }, 60), rec('www', 'A', { address: '192.0.2.2' }, 120)])).toEqual(['rrset_ttl']);
  });

  test('no duplicate records (IPv6 compared in canonical form)', () => {
    const errors = checkZone(ZONE, [rec('www', 'AAAA', { address: '2001:db8::1' }), rec('www', 'AAAA', { address: '2001:DB8:0::0:1' })]);
    expect(errors).toEqual([expect.objectContaining({ rule: 'duplicate', records: [0, 1] })]);
  });

  test('nothing outside the zone', () => {
    expect(rules([rec('www.example.net.', 'A', { address: '192.0.2.1' })])).toEqual(['outside_zone']);
  });

  test('DS never at the apex', () => {
    const ds = { key_tag: 1, algorithm: 13, digest_type: 2, digest: 'ab'.repeat(32) };
    expect(rules([rec('@', 'DS', ds)])).toEqual(['never_at_apex']);
  });

  test('MX, NS and SRV targets must not be CNAMEs', () => {
    expect(rules([
      rec('alias', 'CNAME', { cname: 'mail.example.net.' }),
      rec('@', 'MX', { preference: 10, exchange: 'alias.example.com.' }),
    ])).toEqual(['target_is_cname']);
  });

  test('in-zone NS targets need an address', () => {
    expect(rules([rec('sub', 'NS', { dname: 'ns.sub.example.com.' })])).toEqual(['ns_without_address']);
    expect(rules([rec('sub', 'NS', { dname: 'ns.sub.example.com.' }), rec('ns.sub', 'A', { address: '192.0.2.9' })])).toEqual([]);
  });

  test('every error is returned at once', () => {
    expect(rules([
      rec('www.example.net.', 'A', { address: '192.0.2.1' }),
      rec('@', 'CNAME', { cname: 'a.example.net.' }),
      rec('a', 'A', { address: '192.0.2.1' }, 1), rec('a', 'A', { address: '192.0.2.1' }, 2),
    ])).toEqual(['cname_at_apex', 'duplicate', 'outside_zone', 'rrset_ttl']);
  });

  test('checkRRset alone', () => {
    expect(checkRRset([])).toEqual([]);
    expect(checkRRset([rec('a', 'TXT', { data: 'x' }), rec('a', 'TXT', { data: 'x' })]).map((e) => e.rule)).toEqual(['duplicate']);
  });
});
