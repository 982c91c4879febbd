// One fixture per record type (NicTool keeps lib/zone_record/test/rrs/<type>.json): the RDATA as the API
// takes it, the normalized RDATA we store, and its zone-file text. Owners are relative to example.com.
import type { RecordType } from '../../src/dns';

export interface TypeFixture {
  type: RecordType;
  owner: string;
  input: Record<string, string | number>;
  stored?: Record<string, string | number>;
  bind: string;
}

export const ZONE = 'example.com.';

export const typeFixtures: TypeFixture[] = [
  { type: 'A', owner: 'www', input: { address: '192.0.2.10' }, bind: '192.0.2.10' },
  {
    type: 'AAAA', owner: 'www', input: { address: '2001:0DB8:0000:0000:0000:0000:0000:0001' },
    stored: { address: '2001:db8::1' }, bind: '2001:db8::1',
  },
  { type: 'CNAME', owner: 'ftp', input: { cname: 'WWW.example.com.' }, stored: { cname: 'www.example.com.' }, bind: 'www.example.com.' },
  { type: 'MX', owner: '@', input: { preference: 10, exchange: 'mail.example.com.' }, bind: '10 mail.example.com.' },
  { type: 'NS', owner: 'sub', input: { dname: 'ns1.sub.example.com.' }, bind: 'ns1.sub.example.com.' },
  { type: 'PTR', owner: '10.2.0.192.in-addr', input: { dname: 'www.example.com.' }, bind: 'www.example.com.' },
  {
    type: 'SRV', owner: '_sip._tcp', input: { priority: 10, weight: 60, port: 5060, target: 'sip.example.com.' },
    bind: '10 60 5060 sip.example.com.',
  },
  {
    type: 'TXT', owner: '@', input: { data: 'v=spf1 mx -all "quoted" back\\slash; semi' },
    bind: '"v=spf1 mx -all \\"quoted\\" back\\\\slash; semi"',
  },
  { type: 'CAA', owner: '@', input: { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, bind: '0 issue "letsencrypt.org"' },
  {
    type: 'DS', owner: 'sub',
    input: { key_tag: 60485, algorithm: 13, digest_type: 2, digest: `${'2BB183AF5F22588179A53B0A98631FAD'.repeat(2)}` },
    stored: { key_tag: 60485, algorithm: 13, digest_type: 2, digest: `${'2bb183af5f22588179a53b0a98631fad'.repeat(2)}` },
    bind: `60485 13 2 ${'2bb183af5f22588179a53b0a98631fad'.repeat(2)}`,
  },
  {
    type: 'SSHFP', owner: 'host', input: { algorithm: 4, fptype: 2, fingerprint: 'a'.repeat(64) },
    bind: `4 2 ${'a'.repeat(64)}`,
  },
  {
    type: 'TLSA', owner: '_443._tcp.www',
    input: { certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'b'.repeat(64) },
    bind: `3 1 1 ${'b'.repeat(64)}`,
  },
  {
    type: 'NAPTR', owner: 'sip',
    input: { order: 100, preference: 10, flags: 'U', service: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
    bind: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  },
  {
    type: 'HTTPS', owner: '@', input: { priority: 1, target_name: '.', params: 'port=443 alpn=h2,h3 ipv6hint=2001:db8:0:0::1' },
    stored: { priority: 1, target_name: '.', params: 'alpn="h2,h3" port=443 ipv6hint=2001:db8::1' },
    bind: '1 . alpn="h2,h3" port=443 ipv6hint=2001:db8::1',
  },
  {
    type: 'SVCB', owner: '_dns', input: { priority: 1, target_name: 'dns.example.com.', params: 'alpn=dot port=853 ipv4hint=192.0.2.53' },
    bind: '1 dns.example.com. alpn=dot port=853 ipv4hint=192.0.2.53',
  },
];

/** Address records the fixture zone needs so that every target exists (named-checkzone checks glue). */
export const supportRecords = [
  { owner: 'ns1.sub', type: 'A', ttl: 3600, rdata: { address: '192.0.2.53' } },
  { owner: 'mail', type: 'A', ttl: 3600, rdata: { address: '192.0.2.25' } },
  { owner: 'sip', type: 'A', ttl: 3600, rdata: { address: '192.0.2.60' } },
  { owner: 'dns', type: 'A', ttl: 3600, rdata: { address: '192.0.2.54' } },
  { owner: 'ns1', type: 'A', ttl: 3600, rdata: { address: '192.0.2.1' } },
] as const;
