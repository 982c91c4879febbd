import { FieldError, fieldError } from '../errors';
import { defineType } from './define';

const ALGORITHMS = [1, 2, 3, 4, 6]; // RSA, DSA, ECDSA, Ed25519, Ed448
const FINGERPRINT_OCTETS: Record<number, number> = { 1: 20, 2: 32 }; // SHA-1, SHA-256

export const SSHFP = defineType({
  type: 'SSHFP',
  code: 44,
  rfcs: [4255, 6594, 7479, 8709],
  description: 'SSH host key fingerprint',
  fields: [
    { name: 'algorithm', kind: 'uint8', description: '1 RSA, 2 DSA, 3 ECDSA, 4 Ed25519, 6 Ed448' },
    { name: 'fptype', kind: 'uint8', description: '1 SHA-1, 2 SHA-256' },
    { name: 'fingerprint', kind: 'hex', description: 'fingerprint in hexadecimal' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    if (!ALGORITHMS.includes(Number(r.algorithm))) {
      errors.push(fieldError('algorithm', 'sshfp_algorithm', `algorithm must be one of ${ALGORITHMS.join(', ')}`));
    }
    const octets = FINGERPRINT_OCTETS[Number(r.fptype)];
    if (octets === undefined) errors.push(fieldError('fptype', 'sshfp_fptype', 'fptype must be 1 or 2'));
    else if (String(r.fingerprint).length !== octets * 2) {
      errors.push(fieldError('fingerprint', 'fingerprint_length', `an fptype ${r.fptype} fingerprint has ${octets * 2} hex digits`));
    }
    return errors;
  },
});
