import { Rdata } from '../fields';
import { checkSvcParams } from './svcparams';
import { defineType } from './define';

const FIELDS = [
  { name: 'priority', kind: 'uint16', description: 'SvcPriority; 0 is AliasMode' },
  { name: 'target_name', kind: 'name', root: true, description: 'TargetName; "." means the owner itself' },
  { name: 'params', kind: 'svcparams', description: 'SvcParams as key=value pairs, e.g. alpn=h2,h3 port=443' },
] as const;

export const svcbRules = (r: Rdata) => checkSvcParams(String(r.params), Number(r.priority)).errors;
export const svcbNormalize = (r: Rdata): Rdata => ({
  ...r,
  params: checkSvcParams(String(r.params), Number(r.priority)).value ?? String(r.params),
});

export const SVCB = defineType({
  type: 'SVCB',
  code: 64,
  rfcs: [9460],
  description: 'general service binding',
  fields: FIELDS,
  rules: svcbRules,
  normalize: svcbNormalize,
});
