import { defineType } from './define';

export const DNAME = defineType({
  type: 'DNAME',
  code: 39,
  rfcs: [6672],
  description: 'redirects every name below the owner (not the owner itself) to the same name below the target',
  fields: [{ name: 'target', kind: 'name', description: 'the name the subtree is mapped to, fully qualified' }],
});
