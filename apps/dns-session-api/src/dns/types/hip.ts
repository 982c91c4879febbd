import { FieldError, fieldError } from '../errors';
import { nameToWire } from '../names';
import type { Rdata } from '../fields';
import { defineType } from './define';

/** HIP's RDATA on the wire (RFC 8005 §5): for nameservers that lack the type and take RFC 3597's generic form. */
function hipWire(r: Rdata): Buffer {
  const hit = Buffer.from(String(r.hit), 'hex');
  const key = Buffer.from(String(r.public_key), 'base64');
  const head = Buffer.alloc(4);
  head.writeUInt8(hit.length, 0);
  head.writeUInt8(Number(r.pk_algorithm), 1);
  head.writeUInt16BE(key.length, 2);
  const servers = String(r.rendezvous_servers).split(' ').filter((n) => n !== '').map(nameToWire);
  return Buffer.concat([head, hit, key, ...servers]);
}

export const HIP = defineType({
  type: 'HIP',
  code: 55,
  rfcs: [8005],
  description: 'a Host Identity Protocol host identity and its rendezvous servers',
  fields: [
    { name: 'pk_algorithm', kind: 'uint8', description: 'public key algorithm: 1 DSA, 2 RSA, 3 ECDSA' },
    { name: 'hit', kind: 'hex', oneToken: true, description: 'the host identity tag in hexadecimal' },
    { name: 'public_key', kind: 'base64', oneToken: true, description: 'the host identity in base64' },
    { name: 'rendezvous_servers', kind: 'names', description: 'rendezvous server names separated by spaces; may be left out' },
  ],
  rules: (r) => {
    const errors: FieldError[] = [];
    if (String(r.hit).length > 255 * 2) errors.push(fieldError('hit', 'hip_hit_length', 'hit must be at most 255 octets'));
    if (Buffer.from(String(r.public_key), 'base64').length > 65535) errors.push(fieldError('public_key', 'hip_key_length', 'public_key must be at most 65535 octets'));
    return errors;
  },
  genericWire: hipWire,
});
