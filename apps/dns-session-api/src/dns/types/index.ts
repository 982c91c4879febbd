// The record types Keyzone manages, and the generic per-record operations driven by their field lists:
// validate an RDATA object, write it as zone-file text, read it back from zone-file tokens.
import { FieldError, fieldError } from '../errors';
import { checkField, fieldFromBind, fieldToBind, Rdata, takesRest, Token } from '../fields';
import { A } from './a';
import { APL } from './apl';
import { AAAA } from './aaaa';
import { CAA } from './caa';
import { CERT } from './cert';
import { CNAME } from './cname';
import { RecordTypeDef } from './define';
import { DHCID } from './dhcid';
import { DNAME } from './dname';
import { DNSKEY } from './dnskey';
import { DS } from './ds';
import { HINFO } from './hinfo';
import { HIP } from './hip';
import { HTTPS } from './https';
import { IPSECKEY } from './ipseckey';
import { KX } from './kx';
import { LOC } from './loc';
import { MX } from './mx';
import { NAPTR } from './naptr';
import { NS } from './ns';
import { OPENPGPKEY } from './openpgpkey';
import { PTR } from './ptr';
import { RP } from './rp';
import { SMIMEA } from './smimea';
import { SPF } from './spf';
import { SRV } from './srv';
import { SSHFP } from './sshfp';
import { SVCB } from './svcb';
import { TLSA } from './tlsa';
import { TXT } from './txt';
import { URI } from './uri';

export type { RecordTypeDef } from './define';
export { dsDigestFits } from './ds';

export const RECORD_TYPES = [
  'A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT', 'CAA', 'DS', 'SSHFP', 'TLSA', 'NAPTR', 'HTTPS', 'SVCB',
  // NicTool's other types that BIND serves (issue 14)
  'DNAME', 'LOC', 'URI', 'CERT', 'DNSKEY', 'OPENPGPKEY', 'SMIMEA', 'HINFO', 'RP', 'SPF',
  // NicTool's record library's types that people still publish (issue 38)
  'IPSECKEY', 'DHCID', 'HIP', 'KX', 'APL',
] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const recordTypes: Record<RecordType, RecordTypeDef> = {
  A, AAAA, CNAME, MX, NS, PTR, SRV, TXT, CAA, DS, SSHFP, TLSA, NAPTR, HTTPS, SVCB,
  DNAME, LOC, URI, CERT, DNSKEY, OPENPGPKEY, SMIMEA, HINFO, RP, SPF,
  IPSECKEY, DHCID, HIP, KX, APL,
};

/**
 * Types the DNSSEC signer makes (the nameserver, when a zone is signed): never entered by hand, and said so
 * rather than "unsupported".
 */
export const SIGNER_TYPES = ['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM'] as const;

/** Why a type is refused: the signer's, or simply not one Keyzone manages. */
export function unsupportedTypeReason(type: string): string {
  const upper = type.toUpperCase();
  return (SIGNER_TYPES as readonly string[]).includes(upper)
    ? `${upper} records are made by the DNSSEC signer when a zone is signed (turn on dnssec for the zone), not entered`
    : `type ${type} is not one Keyzone manages (${RECORD_TYPES.join(', ')})`;
}

export function isRecordType(type: string): type is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(type);
}

/**
 * Checks an RDATA object of a type: every field present and well formed, no field of another type,
 * then the type's own rules. Returns the normalized RDATA (lowercase names, RFC 5952 IPv6, lowercase hex,
 * canonical SvcParams) or every error found.
 */
export function validateRdata(type: RecordType, input: Record<string, unknown>): { rdata?: Rdata; errors: FieldError[] } {
  const def = recordTypes[type];
  const errors: FieldError[] = [];
  const rdata: Rdata = {};
  for (const spec of def.fields) {
    const checked = checkField(spec, input[spec.name]);
    errors.push(...checked.errors);
    if (checked.value !== undefined) rdata[spec.name] = checked.value;
  }
  for (const key of Object.keys(input)) {
    if (!def.fields.some((f) => f.name === key)) {
      errors.push(fieldError(key, 'unknown_field', `${key} is not a field of a ${type} record`));
    }
  }
  if (errors.length) return { errors };
  const ruleErrors = def.rules?.(rdata) ?? [];
  if (ruleErrors.length) return { errors: ruleErrors };
  return { rdata: def.normalize ? def.normalize(rdata) : rdata, errors: [] };
}

/** The RDATA part of a zone-file line. */
export function rdataToBind(type: RecordType, rdata: Rdata): string {
  let out = '';
  for (const spec of recordTypes[type].fields) {
    const text = fieldToBind(spec, rdata[spec.name] as string | number);
    if (text !== '') out = out === '' ? text : `${out} ${text}`;
  }
  return out;
}

/** Reads RDATA from the tokens after the type; throws an Error saying what is wrong. */
export function rdataFromBind(type: RecordType, tokens: Token[], origin: string): Rdata {
  const fields = recordTypes[type].fields;
  const rdata: Rdata = {};
  let i = 0;
  for (const spec of fields) {
    if (takesRest(spec.kind, spec)) {
      const rest = tokens.slice(i);
      if (rest.length === 0 && !spec.optional && (spec.kind === 'hex' || spec.kind === 'base64' || spec.kind === 'loc' || spec.kind === 'apl')) {
        throw new Error(`missing ${spec.name}`);
      }
      rdata[spec.name] = fieldFromBind(spec, rest.length ? rest : [{ text: '', quoted: true }], origin);
      i = tokens.length;
    } else {
      rdata[spec.name] = fieldFromBind(spec, tokens.slice(i, i + 1), origin);
      i += 1;
    }
  }
  if (i < tokens.length) {
    throw new Error(`unexpected "${tokens[i]?.text}" after the ${type} data`);
  }
  return rdata;
}
