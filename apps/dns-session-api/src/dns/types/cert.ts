import { defineType } from './define';

export const CERT = defineType({
  type: 'CERT',
  code: 37,
  rfcs: [4398],
  description: 'a certificate or CRL (PKIX, SPKI, PGP, ...)',
  fields: [
    { name: 'cert_type', kind: 'uint16', description: '1 PKIX, 2 SPKI, 3 PGP, 4 IPKIX, 5 ISPKI, 6 IPGP, 7 ACPKIX, 8 IACPKIX, 253 URI, 254 OID' },
    { name: 'key_tag', kind: 'uint16', description: 'key tag of the key, or 0' },
    { name: 'algorithm', kind: 'uint8', description: 'DNSSEC algorithm number, or 0' },
    { name: 'certificate', kind: 'base64', description: 'the certificate or CRL in base64' },
  ],
});
