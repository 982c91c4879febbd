import { FieldError, fieldError } from '../errors';
import { isIpv4 } from '../ip';
import { looksLikeIp } from '../names';
import { defineType } from './define';

const GATEWAY_TYPES: Record<number, { what: string; fits: (gateway: string) => boolean }> = {
  0: { what: '"." (no gateway)', fits: (g) => g === '.' },
  1: { what: 'an IPv4 address', fits: isIpv4 },
  2: { what: 'an IPv6 address', fits: (g) => g.includes(':') },
  3: { what: 'a domain name', fits: (g) => g !== '.' && !looksLikeIp(g) && !g.includes(':') },
};

export const IPSECKEY = defineType({
  type: 'IPSECKEY',
  code: 45,
  rfcs: [4025],
  description: 'an IPsec keying gateway and its public key',
  fields: [
    { name: 'precedence', kind: 'uint8', description: 'lower is preferred, as MX preference' },
    { name: 'gateway_type', kind: 'uint8', description: '0 none, 1 IPv4, 2 IPv6, 3 domain name' },
    { name: 'algorithm', kind: 'uint8', description: 'public key algorithm: 0 none, 1 DSA, 2 RSA, 3 ECDSA, 4 EdDSA' },
    { name: 'gateway', kind: 'gateway', description: '"." for none, an IPv4 or IPv6 address, or a domain name, as gateway_type says' },
    { name: 'public_key', kind: 'base64', optional: true, description: 'the public key in base64; may be left out' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    const type = GATEWAY_TYPES[Number(r.gateway_type)];
    if (!type) errors.push(fieldError('gateway_type', 'ipseckey_gateway_type', 'gateway_type must be 0, 1, 2 or 3'));
    else if (!type.fits(String(r.gateway))) {
      errors.push(fieldError('gateway', 'ipseckey_gateway', `a gateway_type ${r.gateway_type} gateway is ${type.what}, got "${r.gateway}"`));
    }
    if (r.public_key === '' && r.algorithm !== 0) {
      errors.push(fieldError('public_key', 'ipseckey_key', 'a public key is required unless algorithm is 0 (RFC 4025 §2.4)'));
    }
    return errors;
  },
});
