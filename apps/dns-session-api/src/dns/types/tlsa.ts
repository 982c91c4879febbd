import { FieldError, fieldError } from '../errors';
import type { FieldSpec, Rdata } from '../fields';
import { defineType } from './define';

const DATA_OCTETS: Record<number, number> = { 1: 32, 2: 64 }; // SHA-256, SHA-512; 0 = full data

/** Fields and rules shared with SMIMEA (RFC 8162 reuses TLSA's RDATA). */
export const TLSA_FIELDS: readonly FieldSpec[] = [
  { name: 'certificate_usage', kind: 'uint8', description: '0 PKIX-TA, 1 PKIX-EE, 2 DANE-TA, 3 DANE-EE' },
  { name: 'selector', kind: 'uint8', description: '0 full certificate, 1 SubjectPublicKeyInfo' },
  { name: 'matching_type', kind: 'uint8', description: '0 exact, 1 SHA-256, 2 SHA-512' },
  { name: 'certificate_association_data', kind: 'hex', description: 'data in hexadecimal' },
];

export function tlsaRules(r: Rdata): FieldError[] {
  const errors: FieldError[] = [];
  if (Number(r.certificate_usage) > 3) errors.push(fieldError('certificate_usage', 'tlsa_usage', 'certificate_usage must be 0 to 3'));
  if (Number(r.selector) > 1) errors.push(fieldError('selector', 'tlsa_selector', 'selector must be 0 or 1'));
  if (Number(r.matching_type) > 2) {
    errors.push(fieldError('matching_type', 'tlsa_matching_type', 'matching_type must be 0, 1 or 2'));
  } else {
    const octets = DATA_OCTETS[Number(r.matching_type)];
    if (octets !== undefined && String(r.certificate_association_data).length !== octets * 2) {
      errors.push(fieldError('certificate_association_data', 'tlsa_data_length',
        `matching_type ${r.matching_type} data has ${octets * 2} hex digits`));
    }
  }
  return errors;
}

export const TLSA = defineType({
  type: 'TLSA',
  code: 52,
  rfcs: [6698, 7671],
  description: 'DANE TLS certificate association',
  fields: TLSA_FIELDS,
  rules: tlsaRules,
});
