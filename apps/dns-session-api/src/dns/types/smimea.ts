import { defineType } from './define';
import { TLSA_FIELDS, tlsaRules } from './tlsa';

export const SMIMEA = defineType({
  type: 'SMIMEA',
  code: 53,
  rfcs: [8162],
  description: 'S/MIME certificate association (owner: <sha256 of the local part>._smimecert.<domain>); RDATA as TLSA',
  fields: TLSA_FIELDS,
  rules: tlsaRules,
});
