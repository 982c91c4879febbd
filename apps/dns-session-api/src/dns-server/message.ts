// Reading a DNS message with dns-packet's codecs, keeping each record's byte offsets: TSIG is computed over the
// bytes as received, and an UPDATE's "delete an RRset" records have empty RDATA that dns-packet's whole-message
// decode would misread. Every bound is checked; anything malformed throws FormatError (answered FORMERR).
import * as packet from 'dns-packet';

export class FormatError extends Error {}

interface Codec<T> {
  decode(buf: Buffer, offset?: number): T;
}
interface NameCodec {
  decode: ((buf: Buffer, offset?: number) => string) & { bytes: number };
  encode: (name: string, buf?: Buffer, offset?: number) => Buffer;
}
/** dns-packet's name and per-type RDATA codecs (not in @types/dns-packet). */
export const nameCodec = (packet as unknown as { name: NameCodec }).name;
const recordCodec = (packet as unknown as { record: (type: string) => Codec<unknown> & { decode: { bytes: number } } }).record;

export interface RawRecord {
  name: string;
  type: string;
  typeCode: number;
  classCode: number;
  ttl: number;
  rdata: Buffer;
  /** Decoded RDATA (dns-packet's shape), undefined when empty or of a type it does not know. */
  data: unknown;
  start: number;
}

export interface RawMessage {
  id: number;
  qr: boolean;
  opcode: number;
  flags: number;
  questions: Array<{ name: string; type: string; typeCode: number; classCode: number }>;
  answers: RawRecord[];
  authorities: RawRecord[];
  additionals: RawRecord[];
}

export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, YXDOMAIN: 6, YXRRSET: 7, NXRRSET: 8, NOTAUTH: 9, NOTZONE: 10 } as const;
export const CLASS = { IN: 1, NONE: 254, ANY: 255 } as const;

function readName(buf: Buffer, offset: number): { name: string; next: number } {
  let name: string;
  try {
    name = nameCodec.decode(buf, offset);
  } catch {
    throw new FormatError('bad name');
  }
  const next = offset + nameCodec.decode.bytes;
  if (next > buf.length || nameCodec.decode.bytes <= 0) throw new FormatError('bad name');
  return { name: name === '.' ? '' : name.toLowerCase(), next };
}

export function parseMessage(buf: Buffer): RawMessage {
  if (buf.length < 12) throw new FormatError('short header');
  const flags = buf.readUInt16BE(2);
  const counts = [4, 6, 8, 10].map((o) => buf.readUInt16BE(o));
  const message: RawMessage = {
    id: buf.readUInt16BE(0), qr: (flags & 0x8000) !== 0, opcode: (flags >> 11) & 0xf, flags, questions: [], answers: [], authorities: [], additionals: [],
  };
  let offset = 12;
  for (let i = 0; i < counts[0]!; i++) {
    const { name, next } = readName(buf, offset);
    if (next + 4 > buf.length) throw new FormatError('short question');
    const typeCode = buf.readUInt16BE(next);
    message.questions.push({ name, typeCode, type: typeString(typeCode), classCode: buf.readUInt16BE(next + 2) });
    offset = next + 4;
  }
  const sections = [message.answers, message.authorities, message.additionals];
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < counts[s + 1]!; i++) {
      const start = offset;
      const { name, next } = readName(buf, offset);
      if (next + 10 > buf.length) throw new FormatError('short record');
      const typeCode = buf.readUInt16BE(next);
      const rdlength = buf.readUInt16BE(next + 8);
      const rdataStart = next + 10;
      if (rdataStart + rdlength > buf.length) throw new FormatError('short rdata');
      const type = typeString(typeCode);
      let data: unknown;
      if (rdlength > 0 && !type.startsWith('UNKNOWN_') && type !== 'OPT' && type !== 'TSIG') {
        try {
          data = recordCodec(type).decode(buf, next + 8);
          if (recordCodec(type).decode.bytes !== rdlength + 2) data = undefined;
        } catch {
          data = undefined;
        }
      }
      sections[s]!.push({
        name, type, typeCode, classCode: buf.readUInt16BE(next + 2), ttl: buf.readUInt32BE(next + 4), rdata: buf.subarray(rdataStart, rdataStart + rdlength), data, start,
      });
      offset = rdataStart + rdlength;
    }
  }
  return message;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const typesModule = require('dns-packet/types') as { toString(code: number): string; toType(name: string): number };
/** dns-packet's name of a type code ('UNKNOWN_<n>' for one it lacks). */
export const typeString = (code: number) => typesModule.toString(code);
export const typeCodeOf = (name: string) => typesModule.toType(name);
