// Pulling a zone from a running nameserver by AXFR over TCP (RFC 5936), optionally signed with a TSIG key whose
// every answer is verified (tcp-exchange.ts): the records from the first SOA to the closing one, at most MAX_RECORDS
// of them, within the timeout (the whole transfer's, not only between messages). No database work here (the caller
// imports the result in its own transaction afterwards).
import type { RawRecord } from './message';
import { exchange, TransferError, type PullOptions } from './tcp-exchange';

export { TransferError, type PullOptions } from './tcp-exchange';

const MAX_RECORDS = 500_000;

export function pullZone(options: PullOptions): Promise<RawRecord[]> {
  const records: RawRecord[] = [];
  let soas = 0;
  return exchange(options, 'AXFR', 30_000, 'closed the connection before the zone ended', (message) => {
    for (const rr of message.answers) {
      if (records.length === 0 && rr.type !== 'SOA') throw new TransferError('the transfer does not start with the SOA');
      if (rr.type === 'SOA') soas++;
      if (soas === 2 && rr.type === 'SOA') return records;
      records.push(rr);
      if (records.length > MAX_RECORDS) throw new TransferError(`more than ${MAX_RECORDS} records`);
    }
    return undefined;
  });
}
