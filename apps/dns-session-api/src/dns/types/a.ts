import { defineType } from './define';

export const A = defineType({
  type: 'A',
  code: 1,
  rfcs: [1035],
  description: 'IPv4 address',
  hostOwner: true,
  fields: [{ name: 'address', kind: 'ipv4', description: 'dotted-quad IPv4 address' }],
});
