// Pulling a zone from a running nameserver by AXFR over TCP (RFC 5936), optionally signed with a TSIG key whose
// every answer is verified: the records from the first SOA to the closing one, at most MAX_RECORDS of them, within
// the timeout (the whole transfer's, not only between messages). No database work here (the caller imports the
// result in its own transaction afterwards).
import net from 'node:net';
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import { FormatError, parseMessage, RCODE, type RawRecord } from './message';
import { ResponseVerifier, signRequest, type TsigKeyMaterial } from './tsig';

const MAX_RECORDS = 500_000;
const RCODE_NAMES = Object.fromEntries(Object.entries(RCODE).map(([name, code]) => [code, name]));

export class TransferError extends Error {}

export interface PullOptions {
  server: string;
  port: number;
  zone: string;
  key?: TsigKeyMaterial;
  timeoutMs?: number;
  now?: () => number;
}

export function pullZone(options: PullOptions): Promise<RawRecord[]> {
  const zone = options.zone.replace(/\.$/, '').toLowerCase();
  const nowSeconds = () => Math.floor((options.now?.() ?? Date.now()) / 1000);
  const id = randomInt(0, 65536);
  const query = packet.encode({ id, type: 'query', questions: [{ name: zone, type: 'AXFR', class: 'IN' }] });
  const { signed, mac } = options.key ? signRequest(query, options.key, nowSeconds()) : { signed: query, mac: undefined };
  const verifier = options.key && mac ? new ResponseVerifier(options.key, mac) : undefined;
  return new Promise((resolve, reject) => {
    const records: RawRecord[] = [];
    let soas = 0;
    let pending = Buffer.alloc(0);
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      if (err) reject(err);
      else resolve(records);
    };
    const socket = net.connect({ host: options.server, port: options.port });
    const timeoutMs = options.timeoutMs ?? 30_000;
    socket.setTimeout(timeoutMs, () => finish(new TransferError(`no answer from ${options.server} port ${options.port} in time`)));
    // The idle timeout alone lets a primary that sends a message now and then (empty ones, or records without end)
    // hold the import's request or a refresher slot for ever: the whole transfer gets the same time.
    const deadline = setTimeout(() => finish(new TransferError(`the transfer from ${options.server} port ${options.port} did not end in time`)), timeoutMs);
    socket.on('error', (err) => finish(new TransferError(`${options.server} port ${options.port}: ${err.message}`)));
    socket.on('close', () => finish(new TransferError(`${options.server} closed the connection before the zone ended`)));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(signed.length);
      socket.write(Buffer.concat([length, signed]));
    });
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      try {
        while (pending.length >= 2 && !settled) {
          const length = pending.readUInt16BE(0);
          if (pending.length < 2 + length) break;
          const buf = Buffer.from(pending.subarray(2, 2 + length));
          pending = pending.subarray(2 + length);
          const message = parseMessage(buf);
          if (message.id !== id || !message.qr) throw new TransferError('an answer that is not to this query');
          const rcode = message.flags & 0xf;
          if (rcode !== RCODE.NOERROR) throw new TransferError(`the server answered ${RCODE_NAMES[rcode] ?? rcode}`);
          verifier?.verify(buf, message, nowSeconds());
          for (const rr of message.answers) {
            if (records.length === 0 && rr.type !== 'SOA') throw new TransferError('the transfer does not start with the SOA');
            if (rr.type === 'SOA') soas++;
            if (soas === 2 && rr.type === 'SOA') return finish();
            records.push(rr);
            if (records.length > MAX_RECORDS) throw new TransferError(`more than ${MAX_RECORDS} records`);
          }
        }
      } catch (err) {
        finish(err instanceof TransferError ? err : new TransferError(err instanceof FormatError ? `a malformed answer: ${err.message}` : String(err)));
      }
    });
  });
}
