// Asking a primary for its SOA over TCP (the refresh check of a secondary, RFC 1034 §4.3.5), optionally signed with a
// TSIG key whose answer must verify (tcp-exchange.ts). One message each way; no database work.
import { exchange, TransferError, type PullOptions } from './tcp-exchange';

export interface PrimarySoa {
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

export function querySoa(options: PullOptions): Promise<PrimarySoa> {
  const zone = options.zone.replace(/\.$/, '').toLowerCase();
  return exchange(options, 'SOA', 10_000, 'closed the connection without an answer', (message) => {
    // RFC 1034 §4.3.5: only an authoritative answer counts (a server that lost the zone is not the primary any more).
    if ((message.flags & 0x0400) === 0) throw new TransferError('the server is not authoritative for the zone');
    const soa = message.answers.find((rr) => rr.type === 'SOA' && rr.name === zone)?.data as Partial<PrimarySoa> | undefined;
    if (!soa || typeof soa.serial !== 'number') throw new TransferError('the answer holds no SOA for the zone');
    return { serial: soa.serial, refresh: soa.refresh ?? 0, retry: soa.retry ?? 0, expire: soa.expire ?? 0, minimum: soa.minimum ?? 0 };
  });
}
