import { defineType } from './define';

export const NS = defineType({
  type: 'NS',
  code: 2,
  rfcs: [1035],
  description: 'delegation to a name server',
  fields: [{ name: 'dname', kind: 'name', host: true, description: 'name server hostname' }],
});
