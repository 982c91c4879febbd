import { FieldError, fieldError } from '../errors';
import { defineType } from './define';

export const NAPTR = defineType({
  type: 'NAPTR',
  code: 35,
  rfcs: [3403],
  description: 'naming authority pointer',
  fields: [
    { name: 'order', kind: 'uint16', description: 'processed in increasing order' },
    { name: 'preference', kind: 'uint16', description: 'preference among equal orders' },
    { name: 'flags', kind: 'charstring', description: 'letters and digits, e.g. "U", "S", "A", "P"' },
    { name: 'service', kind: 'charstring', description: 'service parameters, e.g. "E2U+sip"' },
    { name: 'regexp', kind: 'charstring', description: 'substitution expression, or empty' },
    { name: 'replacement', kind: 'name', root: true, description: 'next name to query, or "." with a regexp' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    if (!/^[a-z0-9]*$/i.test(String(r.flags))) {
      errors.push(fieldError('flags', 'naptr_flags', 'flags may hold only letters and digits'));
    }
    // RFC 3403 §4.1: regexp and replacement are mutually exclusive.
    if (r.regexp !== '' && r.replacement !== '.') {
      errors.push(fieldError('replacement', 'naptr_regexp_or_replacement', 'with a regexp, replacement must be "."'));
    }
    return errors;
  },
});
