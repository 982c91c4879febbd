import { defineType } from './define';

export const KX = defineType({
  type: 'KX',
  code: 36,
  rfcs: [2230],
  description: 'key exchanger: the host that negotiates keys for the owner (as MX does for mail)',
  fields: [
    { name: 'preference', kind: 'uint16', description: 'lower is preferred' },
    { name: 'exchanger', kind: 'name', description: 'the key exchanger\'s domain name' },
  ],
});
