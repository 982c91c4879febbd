// Records of a DNS message (dns-packet decoded their RDATA) in presentation form, for the zone rules and the zone
// file importer. Only the types listed; anything else is undefined (the caller refuses or reports it).
import { formatCharStrings, quoteText } from '../dns/text';
import type { RawRecord } from './message';

export const absoluteName = (name: string) => (name === '.' || name === '' ? '.' : `${name}.`);

export function presentation(rr: RawRecord): string | undefined {
  const d = rr.data as Record<string, unknown> & string & Buffer[];
  if (d === undefined) return undefined;
  const name = (v: unknown) => absoluteName(String(v));
  const hex = (v: unknown) => Buffer.isBuffer(v) ? v.toString('hex').toUpperCase() : String(v);
  switch (rr.type) {
    case 'A':
    case 'AAAA':
      return String(d);
    case 'NS':
    case 'CNAME':
    case 'PTR':
    case 'DNAME':
      return name(d);
    case 'MX':
      return `${d.preference as number} ${name(d.exchange)}`;
    case 'SRV':
      return `${d.priority as number} ${d.weight as number} ${d.port as number} ${name(d.target)}`;
    case 'TXT':
      return formatCharStrings(d);
    case 'CAA':
      return `${d.flags as number} ${String(d.tag)} ${quoteText(String(d.value))}`;
    case 'DS':
      return `${d.keyTag as number} ${d.algorithm as number} ${d.digestType as number} ${hex(d.digest)}`;
    case 'SSHFP':
      return `${d.algorithm as number} ${d.hash as number} ${String(d.fingerprint)}`;
    case 'TLSA':
      return `${d.usage as number} ${d.selector as number} ${d.matchingType as number} ${hex(d.certificate)}`;
    case 'HINFO':
      return `${quoteText(String(d.cpu))} ${quoteText(String(d.os))}`;
    case 'RP':
      return `${name(d.mbox)} ${name(d.txt)}`;
    case 'NAPTR':
      return `${d.order as number} ${d.preference as number} ${quoteText(String(d.flags))} ${quoteText(String(d.services))} ${quoteText(String(d.regexp))} ${name(d.replacement)}`;
    case 'SOA':
      return `${name(d.mname)} ${name(d.rname)} ${d.serial as number} ${d.refresh as number} ${d.retry as number} ${d.expire as number} ${d.minimum as number}`;
    default:
      return undefined;
  }
}
