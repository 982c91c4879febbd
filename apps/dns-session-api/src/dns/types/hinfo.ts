import { defineType } from './define';

export const HINFO = defineType({
  type: 'HINFO',
  code: 13,
  rfcs: [1035, 8482],
  description: 'host information: CPU and operating system',
  fields: [
    { name: 'cpu', kind: 'charstring', description: 'the CPU type' },
    { name: 'os', kind: 'charstring', description: 'the operating system' },
  ],
});
