import { TXT } from './txt';
import { defineType } from './define';

// RFC 7208 §3.1 deprecates the SPF type (publish TXT); kept for zones that still carry it.
export const SPF = defineType({
  ...TXT,
  type: 'SPF',
  code: 99,
  rfcs: [4408, 7208],
  description: 'sender policy framework (obsolete type: RFC 7208 publishes SPF as TXT); same data as TXT',
});
