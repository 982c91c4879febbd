// DNSSEC arithmetic (RFC 4034): a DNSKEY's key tag and the DS records that point at it, as the parent zone's
// registrar needs them. Pure: hashing only, no I/O.
import { createHash } from 'node:crypto';
import { normalizeName } from './names';

export interface Dnskey {
  flags: number;
  protocol: number;
  algorithm: number;
  /** base64, as in presentation format */
  publicKey: string;
}

export interface DsRecord {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: string;
}

/** The digest types given to a registrar: SHA-256 (2, what every registry takes) and SHA-384 (4). */
export const DS_DIGESTS: ReadonlyArray<{ type: number; hash: string }> = [{ type: 2, hash: 'sha256' }, { type: 4, hash: 'sha384' }];

/** The owner name in canonical wire form: lowercase labels, each after its length, ending with the root's 0. */
export function nameToWire(name: string): Buffer {
  const labels = normalizeName(name).replace(/\.$/, '').split('.').filter((l) => l !== '');
  return Buffer.concat([...labels.map((label) => {
    const bytes = Buffer.from(label.toLowerCase(), 'latin1');
    return Buffer.concat([Buffer.from([bytes.length]), bytes]);
  }), Buffer.from([0])]);
}

export function dnskeyRdata(key: Dnskey): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(key.flags, 0);
  head.writeUInt8(key.protocol, 2);
  head.writeUInt8(key.algorithm, 3);
  return Buffer.concat([head, Buffer.from(key.publicKey.replace(/\s+/g, ''), 'base64')]);
}

/** RFC 4034 Appendix B. */
export function keyTag(key: Dnskey): number {
  const rdata = dnskeyRdata(key);
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i]! : rdata[i]! << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

export function dsRecords(zone: string, key: Dnskey): DsRecord[] {
  const signed = Buffer.concat([nameToWire(zone), dnskeyRdata(key)]);
  return DS_DIGESTS.map(({ type, hash }) => ({
    keyTag: keyTag(key), algorithm: key.algorithm, digestType: type, digest: createHash(hash).update(signed).digest('hex').toUpperCase(),
  }));
}

/** A DNSKEY's RDATA in presentation form ("257 3 13 <base64>"), as PowerDNS and dnssec-keygen write it. */
export function parseDnskey(text: string): Dnskey | undefined {
  const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+([A-Za-z0-9+/=\s]+?)\s*$/.exec(text);
  if (!match) return undefined;
  return { flags: Number(match[1]), protocol: Number(match[2]), algorithm: Number(match[3]), publicKey: match[4]!.replace(/\s+/g, '') };
}
