import { FieldError, fieldError } from '../errors';
import { defineType } from './define';

const TAGS = ['issue', 'issuewild', 'iodef'];

export const CAA = defineType({
  type: 'CAA',
  code: 257,
  rfcs: [8659],
  description: 'certification authority authorization',
  fields: [
    { name: 'flags', kind: 'uint8', description: '0, or 128 for issuer-critical' },
    { name: 'tag', kind: 'word', description: 'issue, issuewild or iodef' },
    { name: 'value', kind: 'value', description: 'CA domain (issue/issuewild) or report URL (iodef)' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    if (r.flags !== 0 && r.flags !== 128) errors.push(fieldError('flags', 'caa_flags', 'flags must be 0 or 128'));
    if (!TAGS.includes(String(r.tag))) {
      errors.push(fieldError('tag', 'caa_tag', `tag must be one of ${TAGS.join(', ')} (lowercase)`));
    }
    if (r.tag === 'iodef' && !/^(mailto|https?):/.test(String(r.value))) {
      errors.push(fieldError('value', 'caa_iodef', 'an iodef value must start with mailto:, http: or https:'));
    }
    return errors;
  },
});
