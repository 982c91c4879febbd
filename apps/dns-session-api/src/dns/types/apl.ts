import { defineType } from './define';

export const APL = defineType({
  type: 'APL',
  code: 42,
  rfcs: [3123],
  description: 'a list of address prefixes',
  fields: [
    {
      name: 'items', kind: 'apl',
      description: 'address prefix items separated by spaces: [!]1:<IPv4>/<0-32> or [!]2:<IPv6>/<0-128>, "!" negates (e.g. "1:192.0.2.0/24 !1:192.0.2.64/28 2:2001:db8::/32")',
    },
  ],
});
