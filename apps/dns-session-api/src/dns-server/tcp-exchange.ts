// One query to a nameserver over TCP (RFC 7766 framing), optionally signed with a TSIG key whose every answer must
// verify: the SOA check of a secondary and the AXFR pull share it. Each answer that is to this query and NOERROR goes
// to `onAnswer`, which returns the result to end the exchange or undefined to read on. The idle timeout alone lets a
// server that sends a byte now and then hold the caller for ever, so the whole exchange gets the same time.
import net from 'node:net';
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import { FormatError, parseMessage, RCODE, type RawMessage } from './message';
import { ResponseVerifier, signRequest, type TsigKeyMaterial } from './tsig';

export class TransferError extends Error {}

export interface PullOptions {
  server: string;
  port: number;
  zone: string;
  key?: TsigKeyMaterial;
  timeoutMs?: number;
  now?: () => number;
}

const RCODE_NAMES = Object.fromEntries(Object.entries(RCODE).map(([name, code]) => [code, name]));

export function exchange<T>(
  options: PullOptions, type: 'SOA' | 'AXFR', defaultTimeoutMs: number, closedEarly: string,
  onAnswer: (message: RawMessage) => T | undefined,
): Promise<T> {
  const zone = options.zone.replace(/\.$/, '').toLowerCase();
  const nowSeconds = () => Math.floor((options.now?.() ?? Date.now()) / 1000);
  const id = randomInt(0, 65536);
  const query = packet.encode({ id, type: 'query', questions: [{ name: zone || '.', type, class: 'IN' }] });
  const { signed, mac } = options.key ? signRequest(query, options.key, nowSeconds()) : { signed: query, mac: undefined };
  const verifier = options.key && mac ? new ResponseVerifier(options.key, mac) : undefined;
  const where = `${options.server} port ${options.port}`;
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    let settled = false;
    const finish = (err: Error | undefined, result?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      if (err) reject(err);
      else resolve(result as T);
    };
    const socket = net.connect({ host: options.server, port: options.port });
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    socket.setTimeout(timeoutMs, () => finish(new TransferError(`no answer from ${where} in time`)));
    const deadline = setTimeout(() => finish(new TransferError(`the exchange with ${where} did not end in time`)), timeoutMs);
    socket.on('error', (err) => finish(new TransferError(`${where}: ${err.message}`)));
    socket.on('close', () => finish(new TransferError(`${options.server} ${closedEarly}`)));
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
          const result = onAnswer(message);
          if (result !== undefined) finish(undefined, result);
        }
      } catch (err) {
        finish(err instanceof TransferError ? err : new TransferError(err instanceof FormatError ? `a malformed answer: ${err.message}` : String(err)));
      }
    });
  });
}
