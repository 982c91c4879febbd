import { fieldError } from '../errors';
import { defineType } from './define';

export const DHCID = defineType({
  type: 'DHCID',
  code: 49,
  rfcs: [4701],
  description: 'which DHCP client a name belongs to (identifier type, digest type and digest)',
  fields: [{ name: 'data', kind: 'base64', description: 'identifier type, digest type and digest, together in base64 (RFC 4701 §3.3)' }],
  rules: (r) =>
    // two octets of identifier type, one of digest type and at least one of digest
    Buffer.from(String(r.data), 'base64').length < 4
      ? [fieldError('data', 'dhcid_length', 'data must hold at least 4 octets: identifier type (2), digest type (1) and a digest')]
      : [],
});
