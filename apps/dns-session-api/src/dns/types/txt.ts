import { fieldError } from '../errors';
import { defineType } from './define';

// RDATA is at most 65535 octets; each 255-octet string costs one length octet.
const MAX_TXT_OCTETS = 65535 - Math.ceil(65535 / 256);

export const TXT = defineType({
  type: 'TXT',
  code: 16,
  rfcs: [1035, 7208],
  description: 'text; longer than 255 octets is split into several strings on export',
  fields: [{ name: 'data', kind: 'text', description: 'the text (Unicode, stored as UTF-8)' }],
  rules: (r) =>
    Buffer.byteLength(String(r.data), 'utf8') > MAX_TXT_OCTETS
      ? [fieldError('data', 'txt_length', `data must be at most ${MAX_TXT_OCTETS} octets`)]
      : [],
});
