import { defineType } from './define';
import { CERT_TYPES, DNSSEC_ALGORITHMS } from './mnemonics';

export const CERT = defineType({
  type: 'CERT',
  code: 37,
  rfcs: [4398],
  description: 'a certificate or CRL (PKIX, SPKI, PGP, ...)',
  fields: [
    {
      name: 'cert_type', kind: 'uint16', mnemonics: CERT_TYPES,
      description: '1 PKIX, 2 SPKI, 3 PGP, 4 IPKIX, 5 ISPKI, 6 IPGP, 7 ACPKIX, 8 IACPKIX, 253 URI, 254 OID: the number or the mnemonic; stored as the number',
    },
    { name: 'key_tag', kind: 'uint16', description: 'key tag of the key, or 0' },
    {
      name: 'algorithm', kind: 'uint8', mnemonics: DNSSEC_ALGORITHMS,
      description: 'DNSSEC algorithm number or mnemonic (e.g. 13 or ECDSAP256SHA256), or 0; stored as the number',
    },
    { name: 'certificate', kind: 'base64', description: 'the certificate or CRL in base64' },
  ],
});
