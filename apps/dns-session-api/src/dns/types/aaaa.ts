import { defineType } from './define';

export const AAAA = defineType({
  type: 'AAAA',
  code: 28,
  rfcs: [3596, 5952],
  description: 'IPv6 address',
  hostOwner: true,
  fields: [{ name: 'address', kind: 'ipv6', description: 'IPv6 address, stored in RFC 5952 form' }],
});
