import { defineType } from './define';

export const PTR = defineType({
  type: 'PTR',
  code: 12,
  rfcs: [1035],
  description: 'pointer (reverse mapping)',
  fields: [{ name: 'dname', kind: 'name', description: 'the name this address maps to' }],
});
