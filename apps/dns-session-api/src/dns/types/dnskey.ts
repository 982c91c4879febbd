import { FieldError, fieldError } from '../errors';
import { defineType } from './define';

export const DNSKEY = defineType({
  type: 'DNSKEY',
  code: 48,
  rfcs: [4034],
  description: 'a DNSSEC public key (256 ZSK, 257 KSK)',
  fields: [
    { name: 'flags', kind: 'uint16', description: '256 zone key, 257 zone key with the secure entry point bit' },
    { name: 'protocol', kind: 'uint8', description: 'always 3' },
    { name: 'algorithm', kind: 'uint8', description: 'DNSSEC algorithm number' },
    { name: 'public_key', kind: 'base64', description: 'the public key in base64' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    if (r.protocol !== 3) errors.push(fieldError('protocol', 'dnskey_protocol', 'protocol must be 3 (RFC 4034 §2.1.2)'));
    if (r.algorithm === 0) errors.push(fieldError('algorithm', 'dnskey_algorithm', 'algorithm 0 is reserved'));
    return errors;
  },
});
