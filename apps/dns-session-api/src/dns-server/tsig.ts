// TSIG (RFC 8945) over the bytes as received and as sent: verifying a request (key, MAC compared in constant time,
// then the time window), and signing answers, including every message of a multi-message zone transfer (§5.3.1:
// the prior MAC, the message, and only the timers). Only hmac-sha256 and hmac-sha512, with full-length MACs.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { FormatError, nameCodec, type RawMessage, type RawRecord } from './message';

export const TSIG_ERROR = { BADSIG: 16, BADKEY: 17, BADTIME: 18, BADTRUNC: 22 } as const;
const ALGORITHMS: Record<string, 'sha256' | 'sha512'> = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' };

export interface TsigRecord {
  keyName: string;
  algorithm: string;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  otherData: Buffer;
  /** Where the TSIG RR starts in the message: the signed part is everything before it. */
  start: number;
}

export interface TsigKeyMaterial {
  name: string;
  algorithm: string;
  secret: Buffer;
}

/** The message's TSIG record (which must be the last additional), or undefined when unsigned. */
export function tsigOf(message: RawMessage): TsigRecord | undefined {
  const index = message.additionals.findIndex((r) => r.type === 'TSIG');
  if (index === -1) return undefined;
  if (index !== message.additionals.length - 1) throw new FormatError('TSIG is not the last record');
  return readTsig(message.additionals[index]!);
}

function readTsig(record: RawRecord): TsigRecord {
  const rdata = record.rdata;
  let algorithm: string;
  try {
    algorithm = nameCodec.decode(rdata, 0).toLowerCase();
  } catch {
    throw new FormatError('bad TSIG algorithm');
  }
  let o = nameCodec.decode.bytes;
  if (o + 10 > rdata.length) throw new FormatError('short TSIG');
  const timeSigned = rdata.readUIntBE(o, 6);
  const fudge = rdata.readUInt16BE(o + 6);
  const macSize = rdata.readUInt16BE(o + 8);
  o += 10;
  if (o + macSize + 6 > rdata.length) throw new FormatError('short TSIG');
  const mac = rdata.subarray(o, o + macSize);
  o += macSize;
  const originalId = rdata.readUInt16BE(o);
  const error = rdata.readUInt16BE(o + 2);
  const otherLen = rdata.readUInt16BE(o + 4);
  o += 6;
  if (o + otherLen !== rdata.length) throw new FormatError('bad TSIG length');
  return { keyName: record.name.replace(/\.$/, ''), algorithm: algorithm.replace(/\.$/, ''), timeSigned, fudge, mac, originalId, error, otherData: rdata.subarray(o), start: record.start };
}

const wireName = (name: string) => nameCodec.encode(name === '' ? '.' : name.toLowerCase());
const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; };
const u48 = (n: number) => { const b = Buffer.alloc(6); b.writeUIntBE(n, 0, 6); return b; };

/** The message before its TSIG RR with ARCOUNT one less and the original ID (§4.3.1). */
function unsignedPart(buf: Buffer, tsig: TsigRecord): Buffer {
  const copy = Buffer.from(buf.subarray(0, tsig.start));
  copy.writeUInt16BE(tsig.originalId, 0);
  copy.writeUInt16BE(copy.readUInt16BE(10) - 1, 10);
  return copy;
}

function variables(key: TsigKeyMaterial, timeSigned: number, fudge: number, error: number, otherData: Buffer): Buffer {
  return Buffer.concat([
    wireName(key.name), u16(255), Buffer.alloc(4), wireName(key.algorithm), u48(timeSigned), u16(fudge), u16(error), u16(otherData.length), otherData,
  ]);
}

function hmac(key: TsigKeyMaterial, parts: Buffer[]): Buffer {
  const h = createHmac(ALGORITHMS[key.algorithm]!, key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

export type TsigCheck = { ok: true } | { ok: false; error: number; signAnswer: boolean };

/**
 * Checks a request's TSIG (§5.2): a known key with that algorithm (else BADKEY), a full-length MAC equal in constant
 * time (else BADSIG), then the time within the fudge (else BADTIME, whose answer is signed).
 */
export function verifyRequest(buf: Buffer, tsig: TsigRecord, key: TsigKeyMaterial | undefined, nowSeconds: number, maxFudge: number): TsigCheck {
  if (!key || key.algorithm !== tsig.algorithm || !ALGORITHMS[tsig.algorithm]) return { ok: false, error: TSIG_ERROR.BADKEY, signAnswer: false };
  const expected = hmac(key, [unsignedPart(buf, tsig), variables(key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.otherData)]);
  if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected)) return { ok: false, error: TSIG_ERROR.BADSIG, signAnswer: false };
  if (Math.abs(nowSeconds - tsig.timeSigned) > Math.min(tsig.fudge, maxFudge)) return { ok: false, error: TSIG_ERROR.BADTIME, signAnswer: true };
  return { ok: true };
}

function appendTsig(message: Buffer, key: { name: string; algorithm: string }, fields: { time: number; fudge: number; mac: Buffer; originalId: number; error: number; otherData: Buffer }): Buffer {
  const rdata = Buffer.concat([
    wireName(key.algorithm), u48(fields.time), u16(fields.fudge), u16(fields.mac.length), fields.mac, u16(fields.originalId), u16(fields.error), u16(fields.otherData.length), fields.otherData,
  ]);
  const rr = Buffer.concat([wireName(key.name), u16(250), u16(255), Buffer.alloc(4), u16(rdata.length), rdata]);
  const out = Buffer.concat([message, rr]);
  out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  return out;
}

/** Signs answers to one signed request: the first with the request's MAC and all variables, later ones (a transfer's) with the timers only. */
export class AnswerSigner {
  private priorMac: Buffer;
  private first = true;

  constructor(private readonly key: TsigKeyMaterial, private readonly request: TsigRecord, private readonly fudge: number) {
    this.priorMac = request.mac;
  }

  sign(message: Buffer, nowSeconds: number, error = 0): Buffer {
    const otherData = error === TSIG_ERROR.BADTIME ? u48(nowSeconds) : Buffer.alloc(0);
    const prior = Buffer.concat([u16(this.priorMac.length), this.priorMac]);
    const tail = this.first
      ? variables(this.key, nowSeconds, this.fudge, error, otherData)
      : Buffer.concat([u48(nowSeconds), u16(this.fudge)]);
    const mac = hmac(this.key, [prior, message, tail]);
    this.first = false;
    this.priorMac = mac;
    return appendTsig(message, this.key, { time: nowSeconds, fudge: this.fudge, mac, originalId: message.readUInt16BE(0), error, otherData });
  }
}

/** An answer's unsigned TSIG (BADKEY, BADSIG: §5.3.2), so the client sees the TSIG error. */
export function appendUnsignedTsig(message: Buffer, request: TsigRecord, error: number, nowSeconds: number): Buffer {
  return appendTsig(message, { name: request.keyName, algorithm: request.algorithm }, {
    time: nowSeconds, fudge: request.fudge, mac: Buffer.alloc(0), originalId: message.readUInt16BE(0), error, otherData: Buffer.alloc(0),
  });
}

/** A request signed with the key (§4.3.1): its MAC, for checking the answers with a ResponseVerifier. */
export function signRequest(message: Buffer, key: TsigKeyMaterial, nowSeconds: number, fudge = 300): { signed: Buffer; mac: Buffer } {
  const mac = hmac(key, [message, variables(key, nowSeconds, fudge, 0, Buffer.alloc(0))]);
  return { signed: appendTsig(message, key, { time: nowSeconds, fudge, mac, originalId: message.readUInt16BE(0), error: 0, otherData: Buffer.alloc(0) }), mac };
}

/**
 * Checks the answers to a signed request (an incoming zone transfer): each message must carry a TSIG with this key
 * whose MAC matches (the first over the request MAC and all variables, later ones over the prior MAC and the timers),
 * within the fudge. Throws FormatError naming what failed.
 */
export class ResponseVerifier {
  private first = true;

  constructor(private readonly key: TsigKeyMaterial, private priorMac: Buffer, private readonly maxFudge = 300) {}

  verify(buf: Buffer, message: RawMessage, nowSeconds: number): void {
    const tsig = tsigOf(message);
    if (!tsig) throw new FormatError('an answer without TSIG');
    if (tsig.keyName !== this.key.name || tsig.algorithm !== this.key.algorithm) throw new FormatError('an answer signed with another key');
    if (tsig.error !== 0) throw new FormatError(`TSIG error ${tsig.error} from the server`);
    const body = unsignedPart(buf, tsig);
    const prior = Buffer.concat([u16(this.priorMac.length), this.priorMac]);
    const tail = this.first ? variables(this.key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.otherData) : Buffer.concat([u48(tsig.timeSigned), u16(tsig.fudge)]);
    const expected = hmac(this.key, [prior, body, tail]);
    if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected)) throw new FormatError('an answer whose TSIG does not verify');
    if (Math.abs(nowSeconds - tsig.timeSigned) > Math.min(tsig.fudge, this.maxFudge)) throw new FormatError('an answer signed outside the time window');
    this.first = false;
    this.priorMac = tsig.mac;
  }
}
