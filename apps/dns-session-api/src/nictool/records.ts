// NicTool keeps record data in v2 columns (address, weight, priority, other, description); the API and Keyzone
// speak RFC field names. This is reference §4.4's column mapping, read in the other direction, for the types
// Keyzone supports; any other type is reported, never dropped silently.
import { canonicalBase64, dsDigestFits, recordTypes, RECORD_TYPES, toAbsolute, unsupportedTypeReason, type RecordInput, type RecordType } from '../dns';
import type { NtRecord } from './source';

const TYPE_BY_CODE = new Map<number, RecordType>(RECORD_TYPES.map((t) => [recordTypes[t].code, t]));

/** RRSIG, NSEC, NSEC3 and NSEC3PARAM rows: what NicTool kept of a signed zone; the signer makes its own. */
const SIGNER_CODES: Record<number, string> = { 46: 'RRSIG', 47: 'NSEC', 50: 'NSEC3', 51: 'NSEC3PARAM' };

export type MappedRecord = { input: RecordInput; description: string; note?: string } | { skip: string };

/** "'a','b','c'" (NAPTR's address column) → ['a', 'b', 'c']; undefined when it is not such a tuple. */
function quotedTuple(text: string): string[] | undefined {
  const items = [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'));
  return items.length > 0 ? items : undefined;
}

export function mapNicToolRecord(zone: string, r: NtRecord): MappedRecord {
  if (r.typeId === 6) return { skip: 'SOA: Keyzone takes the SOA from the zone (nt_zone columns)' };
  if (SIGNER_CODES[r.typeId]) return { skip: unsupportedTypeReason(SIGNER_CODES[r.typeId] as string) };
  const type = TYPE_BY_CODE.get(r.typeId);
  if (!type) return { skip: `record type ${r.typeId} is not supported by Keyzone` };
  const name = (value: string) => toAbsolute(value, zone);
  const int = (value: number | string | null) => (value === null || value === '' ? undefined : Number(value));
  let rdata: Record<string, unknown>;
  switch (type) {
    case 'A':
    case 'AAAA':
      rdata = { address: r.address };
      break;
    case 'CNAME':
      rdata = { cname: name(r.address) };
      break;
    case 'NS':
    case 'PTR':
      rdata = { dname: name(r.address) };
      break;
    case 'TXT':
    case 'SPF': {
      // An odd number of quotes cannot be read as character-strings; NicTool's exporter served the text with its
      // quotes stripped, which is what the nameservers answered, so that is what is imported.
      const quotes = (r.address.match(/(?<!\\)"/g) ?? []).length;
      if (quotes % 2 === 1) {
        return {
          input: { owner: r.name, type, ttl: r.ttl, rdata: { data: r.address.replace(/(?<!\\)"/g, '') } },
          description: r.description,
          note: 'an unbalanced quote in the text; imported without its quotes, as NicTool\'s export served it',
        };
      }
      rdata = { data: r.address };
      break;
    }
    case 'DNAME':
      rdata = { target: name(r.address) };
      break;
    case 'URI':
      rdata = { priority: int(r.priority), weight: int(r.weight), target: r.address };
      break;
    case 'DNSKEY':
      rdata = { flags: int(r.weight), protocol: int(r.priority), algorithm: int(r.other), public_key: r.address };
      break;
    case 'SMIMEA':
      rdata = { certificate_usage: int(r.other), selector: int(r.priority), matching_type: int(r.weight), certificate_association_data: r.address };
      break;
    case 'HINFO':
      rdata = { cpu: r.other ?? '', os: r.address };
      break;
    case 'LOC':
      rdata = { location: r.address };
      break;
    case 'CERT':
      // NicTool's store (getMap): the certificate type in `other` as its mnemonic ("PKIX") or number, the key tag
      // in `priority`, the algorithm in `weight`; the CERT module takes either form of the type.
      rdata = { cert_type: certType(r.other), key_tag: int(r.priority) ?? 0, algorithm: int(r.weight) ?? 0, certificate: r.address };
      break;
    case 'IPSECKEY': {
      // getMap: the gateway in `address`, precedence in `weight`, gateway type in `priority`, algorithm in `other`,
      // and the public key in `description`, so the record gets no description.
      const gatewayType = int(r.priority);
      const gateway = gatewayType === 3 && r.address !== '.' ? name(r.address) : r.address;
      rdata = { precedence: int(r.weight), gateway_type: gatewayType, algorithm: int(r.other) ?? 0, gateway, public_key: r.description };
      return { input: { owner: r.name, type, ttl: r.ttl, rdata }, description: '', ...canonicalKeys(type, rdata) };
    }
    case 'OPENPGPKEY':
      rdata = { public_key: r.address };
      break;
    case 'MX':
      rdata = { preference: int(r.weight), exchange: name(r.address) };
      break;
    case 'SRV':
      rdata = { priority: int(r.priority), weight: int(r.weight), port: int(r.other), target: name(r.address) };
      break;
    case 'CAA':
      rdata = { flags: int(r.weight), tag: r.other ?? '', value: r.address };
      break;
    case 'SSHFP':
      rdata = { algorithm: int(r.weight), fptype: int(r.priority), fingerprint: r.address };
      break;
    case 'TLSA':
      rdata = { certificate_usage: int(r.weight), selector: int(r.priority), matching_type: int(r.other), certificate_association_data: r.address };
      break;
    case 'DS': {
      // NicTool v3 keeps the key tag in `other` and the digest type in `weight`; rows NicTool 2 wrote may have the
      // two the other way round. The digest's length tells them apart: only one of the two is a digest type of it.
      const swapped = !dsDigestFits(int(r.weight), r.address) && dsDigestFits(int(r.other), r.address);
      rdata = {
        key_tag: int(swapped ? r.weight : r.other),
        algorithm: int(r.priority),
        digest_type: int(swapped ? r.other : r.weight),
        digest: r.address,
      };
      if (swapped) {
        return {
          input: { owner: r.name, type, ttl: r.ttl, rdata },
          description: r.description,
          note: `key tag and digest type were in each other's columns (NicTool 2's order); imported as key tag ${r.weight}, digest type ${r.other}, as the digest's length shows`,
        };
      }
      break;
    }
    case 'HTTPS':
    case 'SVCB':
      rdata = { priority: int(r.priority), target_name: r.address === '.' ? '.' : name(r.address), params: r.other ?? '' };
      break;
    case 'NAPTR': {
      const tuple = quotedTuple(r.address);
      if (!tuple || tuple.length !== 3) return { skip: `NAPTR: address must be 'flags','service','regexp', got ${JSON.stringify(r.address)}` };
      const [flags, service, regexp] = tuple as [string, string, string];
      rdata = { order: int(r.weight), preference: int(r.priority), flags, service, regexp, replacement: r.description === '.' ? '.' : name(r.description || '.') };
      // NAPTR keeps its replacement in the description column, so the record gets none.
      return { input: { owner: r.name, type, ttl: r.ttl, rdata }, description: '' };
    }
    default:
      return { skip: `${type}: NicTool has no column mapping for this type` };
  }
  return { input: { owner: r.name, type, ttl: r.ttl, rdata }, description: r.description, ...canonicalKeys(type, rdata) };
}

/** `other` of a CERT row: a mnemonic stays text (the CERT module maps it), a number becomes one. */
function certType(other: string | null): string | number | undefined {
  const text = (other ?? '').trim();
  if (text === '') return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

/**
 * Base64 fields (DNSKEY, CERT, OPENPGPKEY keys) written with non-zero padding bits, which NicTool stored and BIND
 * refuses: rewritten in canonical form (the same bytes), with a note.
 */
function canonicalKeys(type: RecordType, rdata: Record<string, unknown>): { note?: string } {
  const fixed: string[] = [];
  for (const field of recordTypes[type].fields) {
    const value = rdata[field.name];
    if (field.kind !== 'base64' || typeof value !== 'string') continue;
    const compact = value.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+=*$/.test(compact) || compact.length % 4 !== 0) continue;
    const canonical = canonicalBase64(compact);
    if (canonical === compact) continue;
    rdata[field.name] = canonical;
    fixed.push(field.name);
  }
  return fixed.length ? { note: `${fixed.join(', ')} had non-zero base64 padding bits (BIND refuses that); imported in canonical form, the same bytes` } : {};
}
