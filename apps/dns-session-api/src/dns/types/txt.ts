import { fieldError } from '../errors';
import { parseCharStrings } from '../text';
import { defineType } from './define';

// RDATA is at most 65535 octets: every string costs its bytes plus one length octet.
const MAX_RDATA_OCTETS = 65535;

export const TXT = defineType({
  type: 'TXT',
  code: 16,
  rfcs: [1035, 7208],
  description: 'one or more character-strings of up to 255 octets each, kept exactly (split points and bytes)',
  fields: [{
    name: 'data',
    kind: 'charstrings',
    description: 'plain text (split into 255-octet strings), or "quoted" "strings" with RFC 1035 escapes (taken exactly); ' +
      'read back as the text, with `strings` listing each string',
  }],
  rules: (r) => {
    const strings = parseCharStrings(String(r.data)) ?? [];
    const octets = strings.reduce((sum, s) => sum + 1 + s.length, 0);
    return octets > MAX_RDATA_OCTETS ? [fieldError('data', 'txt_length', `data must fit in ${MAX_RDATA_OCTETS} octets of RDATA`)] : [];
  },
});
