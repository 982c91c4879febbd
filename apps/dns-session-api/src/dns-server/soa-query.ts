// Asking a primary for its SOA over TCP (the refresh check of a secondary, RFC 1034 §4.3.5), optionally signed with a
// TSIG key whose answer must verify. One message each way; no database work.
import net from 'node:net';
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import { TransferError, type PullOptions } from './axfr-client';
import { FormatError, parseMessage, RCODE } from './message';
import { ResponseVerifier, signRequest } from './tsig';

export interface PrimarySoa {
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

const RCODE_NAMES = Object.fromEntries(Object.entries(RCODE).map(([name, code]) => [code, name]));

export function querySoa(options: PullOptions): Promise<PrimarySoa> {
  const zone = options.zone.replace(/\.$/, '').toLowerCase();
  const nowSeconds = () => Math.floor((options.now?.() ?? Date.now()) / 1000);
  const id = randomInt(0, 65536);
  const query = packet.encode({ id, type: 'query', questions: [{ name: zone || '.', type: 'SOA', class: 'IN' }] });
  const { signed, mac } = options.key ? signRequest(query, options.key, nowSeconds()) : { signed: query, mac: undefined };
  const verifier = options.key && mac ? new ResponseVerifier(options.key, mac) : undefined;
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    let settled = false;
    const finish = (err: Error | undefined, soa?: PrimarySoa) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      if (err) reject(err);
      else resolve(soa!);
    };
    const socket = net.connect({ host: options.server, port: options.port });
    const timeoutMs = options.timeoutMs ?? 10_000;
    socket.setTimeout(timeoutMs, () => finish(new TransferError(`no answer from ${options.server} port ${options.port} in time`)));
    // A byte now and then resets the idle timeout: the answer as a whole must come within the same time.
    const deadline = setTimeout(() => finish(new TransferError(`no whole answer from ${options.server} port ${options.port} in time`)), timeoutMs);
    socket.on('error', (err) => finish(new TransferError(`${options.server} port ${options.port}: ${err.message}`)));
    socket.on('close', () => finish(new TransferError(`${options.server} closed the connection without an answer`)));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(signed.length);
      socket.write(Buffer.concat([length, signed]));
    });
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length > 65_537) return finish(new TransferError('an oversized answer'));
      if (pending.length < 2 || pending.length < 2 + pending.readUInt16BE(0)) return;
      try {
        const buf = Buffer.from(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        const message = parseMessage(buf);
        if (message.id !== id || !message.qr) throw new TransferError('an answer that is not to this query');
        const rcode = message.flags & 0xf;
        if (rcode !== RCODE.NOERROR) throw new TransferError(`the server answered ${RCODE_NAMES[rcode] ?? rcode}`);
        // RFC 1034 §4.3.5: only an authoritative answer counts (a server that lost the zone is not the primary any more).
        if ((message.flags & 0x0400) === 0) throw new TransferError('the server is not authoritative for the zone');
        verifier?.verify(buf, message, nowSeconds());
        const soa = message.answers.find((rr) => rr.type === 'SOA' && rr.name === zone)?.data as Partial<PrimarySoa> | undefined;
        if (!soa || typeof soa.serial !== 'number') throw new TransferError('the answer holds no SOA for the zone');
        finish(undefined, { serial: soa.serial, refresh: soa.refresh ?? 0, retry: soa.retry ?? 0, expire: soa.expire ?? 0, minimum: soa.minimum ?? 0 });
      } catch (err) {
        finish(err instanceof TransferError ? err : new TransferError(err instanceof FormatError ? `a malformed answer: ${err.message}` : String(err)));
      }
    });
  });
}
