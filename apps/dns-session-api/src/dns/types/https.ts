import { defineType } from './define';
import { SVCB, svcbNormalize, svcbRules } from './svcb';

export const HTTPS = defineType({
  type: 'HTTPS',
  code: 65,
  rfcs: [9460],
  description: 'service binding for HTTPS origins',
  fields: SVCB.fields,
  rules: svcbRules,
  normalize: svcbNormalize,
});
