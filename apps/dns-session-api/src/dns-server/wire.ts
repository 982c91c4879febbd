// Keyzone's records (structured RDATA) as wire-format RDATA, through dns-packet's per-type encoders (names
// uncompressed, which RFC 3597 allows everywhere). A type without an encoder here is not transferable: the zone's
// transfer is refused rather than sent without it (a secondary must never serve a partial zone).
import * as packet from 'dns-packet';
import { recordTypes, type ZoneRecord } from '../dns';
import { parseCharStrings } from '../dns/text';
import { nameCodec } from './message';

type Encoder = { encode(data: unknown): Buffer };
const codec = (packet as unknown as { record: (type: string) => Encoder }).record;
const enc = (type: string, data: unknown) => codec(type).encode(data).subarray(2);
const name = (n: unknown) => nameCodec.encode(String(n));
const hex = (v: unknown) => Buffer.from(String(v).replace(/\s+/g, ''), 'hex');
const b64 = (v: unknown) => Buffer.from(String(v).replace(/\s+/g, ''), 'base64');
const charStrings = (v: unknown) => {
  const strings = parseCharStrings(String(v)) ?? [Buffer.from(String(v), 'utf8')];
  return Buffer.concat(strings.flatMap((s) => [Buffer.from([s.length]), s]));
};

const encoders: Partial<Record<string, (r: Record<string, unknown>) => Buffer>> = {
  A: (r) => enc('A', r.address),
  AAAA: (r) => enc('AAAA', r.address),
  NS: (r) => name(r.dname),
  PTR: (r) => name(r.dname),
  CNAME: (r) => name(r.cname),
  DNAME: (r) => name(r.target),
  MX: (r) => enc('MX', { preference: r.preference, exchange: r.exchange }),
  SRV: (r) => enc('SRV', { priority: r.priority, weight: r.weight, port: r.port, target: r.target }),
  TXT: (r) => charStrings(r.data),
  SPF: (r) => charStrings(r.data),
  CAA: (r) => enc('CAA', { flags: r.flags, tag: r.tag, value: r.value }),
  DS: (r) => enc('DS', { keyTag: r.key_tag, algorithm: r.algorithm, digestType: r.digest_type, digest: hex(r.digest) }),
  DNSKEY: (r) => enc('DNSKEY', { flags: r.flags, algorithm: r.algorithm, key: b64(r.public_key) }),
  SSHFP: (r) => enc('SSHFP', { algorithm: r.algorithm, hash: r.fptype, fingerprint: String(r.fingerprint) }),
  TLSA: (r) => enc('TLSA', { usage: r.certificate_usage, selector: r.selector, matchingType: r.matching_type, certificate: hex(r.certificate_association_data) }),
  NAPTR: (r) => enc('NAPTR', { order: r.order, preference: r.preference, flags: r.flags, services: r.service, regexp: r.regexp, replacement: r.replacement }),
  HINFO: (r) => enc('HINFO', { cpu: r.cpu, os: r.os }),
  RP: (r) => enc('RP', { mbox: r.mbox, txt: r.txt }),
};

export interface WireRecord {
  name: string;
  type: string;
  class: 'IN';
  ttl: number;
  data: Buffer;
}

/** The record as a dns-packet answer with raw RDATA, or undefined when this type cannot be encoded. */
export function wireRecord(r: ZoneRecord): WireRecord | undefined {
  const def = recordTypes[r.type];
  const rdata = r.rdata as Record<string, unknown>;
  const data = encoders[r.type]?.(rdata) ?? def.genericWire?.(r.rdata);
  if (!data) return undefined;
  return { name: r.owner, type: `UNKNOWN_${def.code}`, class: 'IN', ttl: r.ttl, data };
}

export function soaRecord(zone: string, ttl: number, soa: { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number }) {
  return {
    name: zone, type: 'SOA' as const, class: 'IN' as const, ttl,
    data: { mname: soa.mname, rname: soa.rname, serial: soa.serial, refresh: soa.refresh, retry: soa.retry, expire: soa.expire, minimum: soa.minimum },
  };
}
