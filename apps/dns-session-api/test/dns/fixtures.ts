// One fixture per record type (NicTool keeps lib/zone_record/test/rrs/<type>.json): the RDATA as the API
// takes it, the normalized RDATA we store, and its zone-file text. Owners are relative to example.com.
import type { RecordType } from '../../src/dns';

export interface TypeFixture {
  type: RecordType;
  owner: string;
  input: Record<string, string | number>;
  stored?: Record<string, string | number>;
  /** The RDATA as the API shows it, when not the input (TXT adds `strings`). */
  wire?: Record<string, unknown>;
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
    type: 'TXT', owner: '@', input: { data: 'v=spf1 mx -all "quoted" back\\slash; semi café' },
    stored: { data: '"v=spf1 mx -all \\"quoted\\" back\\\\slash; semi caf\\195\\169"' },
    wire: { data: 'v=spf1 mx -all "quoted" back\\slash; semi café', strings: ['v=spf1 mx -all \\"quoted\\" back\\\\slash; semi café'] },
    bind: '"v=spf1 mx -all \\"quoted\\" back\\\\slash; semi caf\\195\\169"',
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
  { type: 'DNAME', owner: 'old', input: { target: 'new.example.com.' }, bind: 'new.example.com.' },
  {
    type: 'LOC', owner: 'office', input: { location: '52 22 23 N 4 53 32 E -2m' },
    stored: { location: '52 22 23.000 N 4 53 32.000 E -2.00m 1m 10000m 10m' },
    bind: '52 22 23.000 N 4 53 32.000 E -2.00m 1m 10000m 10m',
  },
  { type: 'URI', owner: '_http._tcp', input: { priority: 10, weight: 1, target: 'https://www.example.com/' }, bind: '10 1 "https://www.example.com/"' },
  {
    type: 'CERT', owner: 'cert', input: { cert_type: 1, key_tag: 0, algorithm: 0, certificate: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A' },
    bind: '1 0 0 MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A',
  },
  { type: 'DNSKEY', owner: '@', input: { flags: 257, protocol: 3, algorithm: 13, public_key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==' }, bind: '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==' },
  { type: 'OPENPGPKEY', owner: 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._openpgpkey', input: { public_key: 'mQENBFVHm5sBCACeJ0bz' }, bind: 'mQENBFVHm5sBCACeJ0bz' },
  {
    type: 'SMIMEA', owner: 'c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._smimecert',
    input: { certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
    bind: '3 1 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  },
  { type: 'HINFO', owner: 'box', input: { cpu: 'INTEL-386', os: 'Linux' }, bind: '"INTEL-386" "Linux"' },
  { type: 'RP', owner: '@', input: { mbox: 'hostmaster.example.com.', txt: '.' }, bind: 'hostmaster.example.com. .' },
  {
    type: 'SPF', owner: '@', input: { data: 'v=spf1 -all' }, stored: { data: '"v=spf1 -all"' },
    wire: { data: 'v=spf1 -all', strings: ['v=spf1 -all'] }, bind: '"v=spf1 -all"',
  },
  // RFC 4025 §3.3's example, with its gateway as a name in this zone
  {
    type: 'IPSECKEY', owner: 'vpn',
    input: { precedence: 10, gateway_type: 3, algorithm: 2, gateway: 'GW.example.com.', public_key: 'AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==' },
    stored: { precedence: 10, gateway_type: 3, algorithm: 2, gateway: 'gw.example.com.', public_key: 'AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==' },
    bind: '10 3 2 gw.example.com. AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==',
  },
  // RFC 4701 §3.6's example
  { type: 'DHCID', owner: 'chi', input: { data: 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=' }, bind: 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=' },
  // RFC 8005 §6's example
  {
    type: 'HIP', owner: 'hip',
    input: {
      pk_algorithm: 2, hit: '200100107B1A74DF365639CC39F1D578',
      public_key: 'AwEAAbdxyhNuSutc5EMzxTs9LBPCIkOFH8cIvM4p9+LrV4e19WzK00+CI6zBCQTdtWsuxKbWIy87UOoJTwIXAqcOTiW7iHnQt5hwVAAAAA==',
      rendezvous_servers: 'RVS1.example.com. rvs2.example.com.',
    },
    stored: {
      pk_algorithm: 2, hit: '200100107b1a74df365639cc39f1d578',
      public_key: 'AwEAAbdxyhNuSutc5EMzxTs9LBPCIkOFH8cIvM4p9+LrV4e19WzK00+CI6zBCQTdtWsuxKbWIy87UOoJTwIXAqcOTiW7iHnQt5hwVAAAAA==',
      rendezvous_servers: 'rvs1.example.com. rvs2.example.com.',
    },
    bind: '2 200100107b1a74df365639cc39f1d578 AwEAAbdxyhNuSutc5EMzxTs9LBPCIkOFH8cIvM4p9+LrV4e19WzK00+CI6zBCQTdtWsuxKbWIy87UOoJTwIXAqcOTiW7iHnQt5hwVAAAAA== rvs1.example.com. rvs2.example.com.',
  },
  { type: 'KX', owner: 'secure', input: { preference: 10, exchanger: 'kx.example.com.' }, bind: '10 kx.example.com.' },
  {
    type: 'APL', owner: 'nets', input: { items: '1:192.0.2.0/24  !1:192.0.2.64/28 2:2001:DB8:0::/32' },
    stored: { items: '1:192.0.2.0/24 !1:192.0.2.64/28 2:2001:db8::/32' }, bind: '1:192.0.2.0/24 !1:192.0.2.64/28 2:2001:db8::/32',
  },
];

/** Address records the fixture zone needs so that every target exists (named-checkzone checks glue). */
export const supportRecords = [
  { owner: 'ns1.sub', type: 'A', ttl: 3600, rdata: { address: '192.0.2.53' } },
  { owner: 'mail', type: 'A', ttl: 3600, rdata: { address: '192.0.2.25' } },
  { owner: 'sip', type: 'A', ttl: 3600, rdata: { address: '192.0.2.60' } },
  { owner: 'dns', type: 'A', ttl: 3600, rdata: { address: '192.0.2.54' } },
  { owner: 'ns1', type: 'A', ttl: 3600, rdata: { address: '192.0.2.1' } },
  { owner: 'kx', type: 'A', ttl: 3600, rdata: { address: '192.0.2.36' } },
] as const;

export const goodRdata = (type: RecordType) => typeFixtures.find((f) => f.type === type)!.input;

// Every rule a record can break, with one failing case each: [type, changes, field, rule].
export const failingRdata: Array<[RecordType, Record<string, unknown>, string, string]> = [
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
  ['TXT', { data: 'a\u0000b' }, 'data', 'nul'],
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
  ['SMIMEA', { selector: 2 }, 'selector', 'tlsa_selector'],
  ['LOC', { location: '91 0 0 N 0 0 0 E 0m' }, 'location', 'loc'],
  ['LOC', { location: 'somewhere' }, 'location', 'loc'],
  ['URI', { target: 'not a uri' }, 'target', 'uri_target'],
  ['DNSKEY', { protocol: 2 }, 'protocol', 'dnskey_protocol'],
  ['DNSKEY', { public_key: 'not base64!' }, 'public_key', 'base64'],
  // non-zero padding bits (R instead of Q before "=="): BIND refuses the zone (issue 27)
  ['DNSKEY', { public_key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGR==' }, 'public_key', 'base64_padding'],
  ['CERT', { certificate: '' }, 'certificate', 'base64'],
  ['CERT', { cert_type: 'X509' }, 'cert_type', 'mnemonic'],
  ['CERT', { cert_type: '65536' }, 'cert_type', 'mnemonic'],
  ['CERT', { algorithm: 'RSASHA3' }, 'algorithm', 'mnemonic'],
  ['DS', { algorithm: 'ECDSAP256SHA256' }, 'algorithm', 'uint8'],
  ['IPSECKEY', { gateway_type: 4 }, 'gateway_type', 'ipseckey_gateway_type'],
  ['IPSECKEY', { gateway_type: 1 }, 'gateway', 'ipseckey_gateway'],
  ['IPSECKEY', { gateway_type: 0 }, 'gateway', 'ipseckey_gateway'],
  ['IPSECKEY', { gateway_type: 2, gateway: '192.0.2.1' }, 'gateway', 'ipseckey_gateway'],
  ['IPSECKEY', { gateway: '192.0.2.999' }, 'gateway', 'gateway'],
  ['IPSECKEY', { public_key: '' }, 'public_key', 'ipseckey_key'],
  ['DHCID', { data: 'AAE=' }, 'data', 'dhcid_length'],
  ['HIP', { hit: 'xyz' }, 'hit', 'hex'],
  ['HIP', { rendezvous_servers: 'rvs.example.com' }, 'rendezvous_servers', 'fqdn'],
  ['KX', { exchanger: 'kx' }, 'exchanger', 'fqdn'],
  ['APL', { items: '' }, 'items', 'apl'],
  ['APL', { items: '3:192.0.2.0/24' }, 'items', 'apl'],
  ['APL', { items: '1:192.0.2.0/33' }, 'items', 'apl'],
  ['APL', { items: '2:2001:db8::/129' }, 'items', 'apl'],
  ['APL', { items: '1:192.0.2.1/24 2:192.0.2.0/24' }, 'items', 'apl'],
  ['HINFO', { cpu: 'x'.repeat(256) }, 'cpu', 'charstring_length'],
  ['RP', { mbox: 'no spaces allowed.' }, 'mbox', 'mailbox'],
  ['RP', { mbox: 'dns.a_b.example.' }, 'mbox', 'mailbox_domain'],
  ['TLSA', { selector: 2 }, 'selector', 'tlsa_selector'],
  ['TLSA', { matching_type: 3 }, 'matching_type', 'tlsa_matching_type'],
  ['TLSA', { matching_type: 2 }, 'certificate_association_data', 'tlsa_data_length'],
  ['NAPTR', { flags: 'U!' }, 'flags', 'naptr_flags'],
  ['NAPTR', { replacement: 'sip.example.com.' }, 'replacement', 'naptr_regexp_or_replacement'],
  ['NAPTR', { service: 'x'.repeat(256) }, 'service', 'charstring_length'],
  // What BIND refuses on load (issue 27): an unbalanced ERE, a bad delimiter, an unknown flag, a missing group.
  ['NAPTR', { regexp: '!a(b!x!' }, 'regexp', 'naptr_regexp'],
  ['NAPTR', { regexp: '1^.*$1x1' }, 'regexp', 'naptr_regexp'],
  ['NAPTR', { regexp: '!^.*$!x!g' }, 'regexp', 'naptr_regexp'],
  ['NAPTR', { regexp: '!^(.*)$!\\2!' }, 'regexp', 'naptr_regexp'],
  ['NAPTR', { regexp: '!^.*$!x' }, 'regexp', 'naptr_regexp'],
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

