import { FieldError, fieldError } from '../errors';
import { defineType } from './define';

// Digest octets per digest type: SHA-1, SHA-256, GOST R 34.11-94, SHA-384 (IANA DS RR digest types).
const DIGEST_OCTETS: Record<number, number> = { 1: 20, 2: 32, 3: 32, 4: 48 };

/** Whether `digestType` is a digest type whose digests have as many hex digits as `digest` (spaces ignored). */
export function dsDigestFits(digestType: number | undefined, digest: string): boolean {
  const octets = digestType === undefined ? undefined : DIGEST_OCTETS[digestType];
  return octets !== undefined && digest.replace(/\s+/g, '').length === octets * 2;
}

export const DS = defineType({
  type: 'DS',
  code: 43,
  rfcs: [4034, 4509, 6605],
  description: 'delegation signer; at a delegation point, never at the zone apex',
  fields: [
    { name: 'key_tag', kind: 'uint16', description: 'key tag of the child DNSKEY' },
    { name: 'algorithm', kind: 'uint8', description: 'DNSSEC algorithm number' },
    { name: 'digest_type', kind: 'uint8', description: '1 SHA-1, 2 SHA-256, 3 GOST, 4 SHA-384' },
    { name: 'digest', kind: 'hex', description: 'digest in hexadecimal' },
  ],
  neverAtApex: true,
  rules: (r) => {
    const errors: FieldError[] = [];
    if (r.algorithm === 0) errors.push(fieldError('algorithm', 'ds_algorithm', 'algorithm 0 is reserved'));
    const octets = DIGEST_OCTETS[Number(r.digest_type)];
    if (octets === undefined) {
      errors.push(fieldError('digest_type', 'ds_digest_type', 'digest_type must be 1, 2, 3 or 4'));
    } else if (String(r.digest).length !== octets * 2) {
      errors.push(fieldError('digest', 'digest_length', `a digest_type ${r.digest_type} digest has ${octets * 2} hex digits`));
    }
    return errors;
  },
});
