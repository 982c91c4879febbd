import { defineType } from './define';

export const SRV = defineType({
  type: 'SRV',
  code: 33,
  rfcs: [2782],
  description: 'service location',
  fields: [
    { name: 'priority', kind: 'uint16', description: 'lower is tried first' },
    { name: 'weight', kind: 'uint16', description: 'share among equal priorities' },
    { name: 'port', kind: 'uint16', description: 'service port' },
    { name: 'target', kind: 'name', host: true, root: true, description: 'host offering the service; "." = not offered' },
  ],
});
