// Mnemonics that presentation formats allow in place of a number (zone files, and so the API).

/** DNSSEC algorithm numbers (RFC 4034 Appendix A.1, and the IANA registry since), as CERT takes them. */
export const DNSSEC_ALGORITHMS: Readonly<Record<string, number>> = {
  RSAMD5: 1, DH: 2, DSA: 3, ECC: 4, RSASHA1: 5, 'DSA-NSEC3-SHA1': 6, 'RSASHA1-NSEC3-SHA1': 7, RSASHA256: 8, RSASHA512: 10,
  'ECC-GOST': 12, ECDSAP256SHA256: 13, ECDSAP384SHA384: 14, ED25519: 15, ED448: 16, INDIRECT: 252, PRIVATEDNS: 253, PRIVATEOID: 254,
};

/** CERT certificate types (RFC 4398 §2.1). */
export const CERT_TYPES: Readonly<Record<string, number>> = {
  PKIX: 1, SPKI: 2, PGP: 3, IPKIX: 4, ISPKI: 5, IPGP: 6, ACPKIX: 7, IACPKIX: 8, URI: 253, OID: 254,
};
