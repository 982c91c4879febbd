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
    const regexpProblem = naptrRegexpProblem(String(r.regexp));
    if (regexpProblem) errors.push(fieldError('regexp', 'naptr_regexp', `regexp ${regexpProblem}`));
    // RFC 3403 §4.1: regexp and replacement are mutually exclusive.
    if (r.regexp !== '' && r.replacement !== '.') {
      errors.push(fieldError('replacement', 'naptr_regexp_or_replacement', 'with a regexp, replacement must be "."'));
    }
    return errors;
  },
});

/**
 * RFC 3403 §3.2 as BIND checks it on load: delim-char ERE delim-char substitution delim-char flags, the delimiter
 * neither a digit nor a backslash nor "i", the flags only "i", the ERE's parentheses balanced and no back-reference
 * in the substitution beyond its groups. Undefined when valid (or empty).
 */
export function naptrRegexpProblem(regexp: string): string | undefined {
  if (regexp === '') return undefined;
  const delim = regexp[0]!;
  if (/[0-9\\i]/.test(delim)) return `may not use ${JSON.stringify(delim)} as its delimiter`;
  const parts: string[] = [''];
  for (let i = 1; i < regexp.length; i += 1) {
    const c = regexp[i]!;
    if (c === '\\' && i + 1 < regexp.length) {
      parts[parts.length - 1] += c + regexp[i + 1];
      i += 1;
    } else if (c === delim) {
      parts.push('');
    } else {
      parts[parts.length - 1] += c;
    }
  }
  if (parts.length !== 3) return `must be ${delim}ERE${delim}substitution${delim}flags`;
  const [ere = '', substitution = '', flags = ''] = parts;
  if (ere === '') return 'has an empty ERE';
  if (!/^i?$/.test(flags)) return 'may have only the flag "i"';
  let depth = 0;
  let groups = 0;
  for (let i = 0; i < ere.length; i += 1) {
    const c = ere[i];
    if (c === '\\') i += 1;
    else if (c === '(') {
      depth += 1;
      groups += 1;
    } else if (c === ')') {
      depth -= 1;
      if (depth < 0) return 'has a ")" without its "("';
    }
  }
  if (depth !== 0) return 'has a "(" without its ")"';
  for (const match of substitution.matchAll(/\\([0-9])/g)) {
    if (Number(match[1]) > groups) return `refers to group \\${match[1]}, but the ERE has ${groups}`;
  }
  return undefined;
}
