import { defineType } from './define';

export const CNAME = defineType({
  type: 'CNAME',
  code: 5,
  rfcs: [1034, 1035, 2181],
  description: 'canonical name (alias); alone at its owner',
  fields: [{ name: 'cname', kind: 'name', description: 'the canonical name, fully qualified' }],
});
