// SOA values of a zone: RFC 1912 §2.2 defaults, the YYYYMMDDnn serial, and the mailbox ↔ RNAME mapping.
import { isHostLabel, labelLength, MAX_NAME_OCTETS, normalizeName, splitLabels } from './names';

export interface Soa {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** RFC 1912 §2.2 recommendations (refresh 8 h… 1 day, retry 2 h, expire 2–4 weeks, minimum 1 day at most). */
export const SOA_DEFAULTS = { refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600 } as const;

export const MAX_SERIAL = 4294967295;

/**
 * The next serial in YYYYMMDDnn form: today's first serial if the current one is older, else one more.
 * A serial already past today's range (many changes in a day, or an imported larger serial) just increments,
 * wrapping per RFC 1982 arithmetic.
 */
export function nextSerial(current: number, now: Date): number {
  const day = now.getUTCFullYear() * 10000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate();
  const first = day * 100;
  if (current < first) return first;
  return current >= MAX_SERIAL ? 1 : current + 1;
}

/** "hostmaster@example.com" → "hostmaster.example.com."; dots in the local part are escaped. */
export function mailboxToRname(mailbox: string): string {
  const at = mailbox.lastIndexOf('@');
  if (at < 0) return mailbox.endsWith('.') ? mailbox.toLowerCase() : `${mailbox.toLowerCase()}.`;
  const local = mailbox.slice(0, at).replace(/\./g, '\\.');
  const domain = mailbox.slice(at + 1).replace(/\.$/, '');
  return `${local}.${domain}.`.toLowerCase();
}

const DEFAULT_LOCAL_PART = 'hostmaster';

/**
 * The SOA RNAME of a zone created without one: hostmaster at the zone, or at its nearest ancestor that is a host
 * name and short enough. BIND refuses to load a zone whose RNAME is at a name with other labels (check-names), so
 * the RFC 2317 zone 0/26.2.0.192.in-addr.arpa. gets hostmaster.2.0.192.in-addr.arpa.; a 250-octet zone name
 * loses labels until the mailbox fits in 255 octets. At worst it is "hostmaster." (BIND and PowerDNS accept it).
 */
export function defaultMailbox(zone: string): string {
  const labels = splitLabels(normalizeName(zone));
  let octets = 1 + (1 + DEFAULT_LOCAL_PART.length);
  let start = labels.length;
  while (start > 0) {
    const label = labels[start - 1] as string;
    if (!isHostLabel(label) || octets + 1 + labelLength(label) > MAX_NAME_OCTETS) break;
    octets += 1 + labelLength(label);
    start -= 1;
  }
  return `${[DEFAULT_LOCAL_PART, ...labels.slice(start)].join('.')}.`;
}
