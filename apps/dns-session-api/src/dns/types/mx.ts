import { fieldError } from '../errors';
import { defineType } from './define';

export const MX = defineType({
  type: 'MX',
  code: 15,
  rfcs: [1035, 7505],
  description: 'mail exchange',
  hostOwner: true,
  fields: [
    { name: 'preference', kind: 'uint16', description: 'lower is preferred' },
    { name: 'exchange', kind: 'name', host: true, root: true, description: 'mail server hostname; "." is the null MX' },
  ],
  // RFC 7505: a domain that accepts no mail publishes exactly "0 ."
  rules: (r) =>
    r.exchange === '.' && r.preference !== 0
      ? [fieldError('preference', 'null_mx', 'a null MX (exchange ".") must have preference 0')]
      : [],
});
