// Field kinds shared by the record types: how one RDATA field is checked, normalized, written to and
// read from a zone file. A record type is then a list of fields plus its own extra rules.
import { FieldError, fieldError } from './errors';
import { canonicalIpv6, isIpv4 } from './ip';
import { normalizeLoc } from './loc';
import { checkHostName, checkName, looksLikeIp, normalizeName, toAbsolute } from './names';
import { formatCharStrings, MAX_CHARSTRING_OCTETS, octetLength, parseCharStrings, quoteText, splitText, unescapeBytes } from './text';

export type FieldKind =
  | 'uint8' | 'uint16' | 'uint32'
  | 'ipv4' | 'ipv6'
  | 'name'
  | 'charstring'   // one <character-string>, ≤255 octets, quoted in zone files
  | 'charstrings'  // TXT data: one or more <character-string>s, stored in presentation form (text.ts)
  | 'value'        // CAA value: the rest of the RDATA, quoted
  | 'word'         // one unquoted token (CAA tag)
  | 'hex'          // digests and fingerprints, whitespace allowed between pieces in zone files
  | 'base64'       // keys and certificates (DNSKEY, CERT, OPENPGPKEY), whitespace allowed between pieces
  | 'loc'          // LOC: latitude, longitude, altitude, size, precisions (RFC 1876 presentation)
  | 'svcparams';   // SVCB/HTTPS key=value list, checked by the svcb module

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  /** name fields: the root "." is allowed */
  root?: boolean;
  /** name fields: must be a host name per BIND check-names (NS, MX, SRV targets) */
  host?: boolean;
  description: string;
}

export type RdataValue = string | number;
export type Rdata = Record<string, RdataValue>;

/** A zone-file token: text with quotes removed when the whole token was quoted. */
export interface Token {
  text: string;
  quoted: boolean;
}

const UINT_MAX: Record<string, number> = { uint8: 255, uint16: 65535, uint32: 4294967295 };

export function isNumericKind(kind: FieldKind): boolean {
  return kind === 'uint8' || kind === 'uint16' || kind === 'uint32';
}

/** Checks one field; returns the normalized value, or errors. */
export function checkField(spec: FieldSpec, value: unknown): { value?: RdataValue; errors: FieldError[] } {
  const { name, kind } = spec;
  if ((value === undefined || value === null) && kind === 'svcparams') return { value: '', errors: [] };
  if (value === undefined || value === null) return { errors: [fieldError(name, 'required', `${name} is required`)] };
  if (isNumericKind(kind)) {
    const max = UINT_MAX[kind] as number;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
      return { errors: [fieldError(name, kind, `${name} must be an integer from 0 to ${max}`)] };
    }
    return { value, errors: [] };
  }
  if (typeof value !== 'string') return { errors: [fieldError(name, 'string', `${name} must be a string`)] };
  // Stored RDATA is jsonb text, which cannot hold NUL; DNS data practically never needs it.
  if (value.includes('\u0000')) return { errors: [fieldError(name, 'nul', `${name} may not contain NUL characters`)] };
  switch (kind) {
    case 'ipv4':
      return isIpv4(value)
        ? { value, errors: [] }
        : { errors: [fieldError(name, 'ipv4', `${name} must be a dotted-quad IPv4 address: "${value}"`)] };
    case 'ipv6': {
      const canonical = canonicalIpv6(value);
      return canonical
        ? { value: canonical, errors: [] }
        : { errors: [fieldError(name, 'ipv6', `${name} must be an IPv6 address: "${value}"`)] };
    }
    case 'name': {
      if (value !== '.' && looksLikeIp(value)) {
        return { errors: [fieldError(name, 'not_ip', `${name} must be a hostname, not an IP address: "${value}"`)] };
      }
      const errors = checkName(name, value, { root: spec.root });
      if (!errors.length && spec.host) errors.push(...checkHostName(name, value));
      return errors.length ? { errors } : { value: normalizeName(value), errors: [] };
    }
    case 'charstring':
      return octetLength(value) > MAX_CHARSTRING_OCTETS
        ? { errors: [fieldError(name, 'charstring_length', `${name} must be at most 255 octets`)] }
        : { value, errors: [] };
    case 'charstrings': {
      // Quoted strings are taken exactly (escapes give any byte); anything else is plain text, split into
      // strings of 255 octets. Both are stored in the canonical presentation form.
      const strings = value.trimStart().startsWith('"') ? parseCharStrings(value) : splitText(value);
      if (!strings) {
        return { errors: [fieldError(name, 'charstrings', `${name} starting with a quote must be one or more "quoted" strings separated by spaces`)] };
      }
      if (strings.some((s) => s.length > MAX_CHARSTRING_OCTETS)) {
        return { errors: [fieldError(name, 'charstring_length', `each quoted string of ${name} must be at most 255 octets`)] };
      }
      return { value: formatCharStrings(strings), errors: [] };
    }
    case 'value':
      return { value, errors: [] };
    case 'word':
      return /^[!-~]+$/.test(value) && !/["\\;()]/.test(value)
        ? { value, errors: [] }
        : { errors: [fieldError(name, 'word', `${name} must be one word of printable ASCII`)] };
    case 'hex':
      return /^([0-9a-f]{2})+$/i.test(value)
        ? { value: value.toLowerCase(), errors: [] }
        : { errors: [fieldError(name, 'hex', `${name} must be an even number of hexadecimal digits`)] };
    case 'svcparams':
      return { value: value.trim().replace(/\s+/g, ' '), errors: [] };
    case 'base64': {
      const compact = value.replace(/\s+/g, '');
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact) || compact === '') {
        return { errors: [fieldError(name, 'base64', `${name} must be base64 (RFC 4648)`)] };
      }
      // BIND refuses the whole zone when the bits after the last byte are not zero (RFC 4648 §3.5 canonical form).
      const canonical = canonicalBase64(compact);
      return canonical === compact
        ? { value: compact, errors: [] }
        : { errors: [fieldError(name, 'base64_padding', `${name} has non-zero padding bits; its canonical form ends "${canonical.slice(-4)}"`)] };
    }
    case 'loc': {
      const loc = normalizeLoc(value);
      return loc
        ? { value: loc, errors: [] }
        : { errors: [fieldError(name, 'loc', `${name} must be "d [m [s]] N|S d [m [s]] E|W alt[m] [size[m] [hp[m] [vp[m]]]]" (RFC 1876)`)] };
    }
    default:
      return { value, errors: [] };
  }
}

/** Presentation text of one field. */
export function fieldToBind(spec: FieldSpec, value: RdataValue): string {
  switch (spec.kind) {
    case 'charstring':
    case 'value':
      return quoteText(String(value));
    case 'charstrings':
      return String(value);
    default:
      return String(value);
  }
}

/** Whether this field takes every remaining token of the line. */
export function takesRest(kind: FieldKind): boolean {
  return kind === 'charstrings' || kind === 'hex' || kind === 'base64' || kind === 'loc' || kind === 'svcparams';
}

/** Reads one field from its token(s); names are made absolute in origin. Throws an Error with the reason. */
export function fieldFromBind(spec: FieldSpec, tokens: Token[], origin: string): RdataValue {
  const first = tokens[0];
  if (!first) throw new Error(`missing ${spec.name}`);
  switch (spec.kind) {
    case 'uint8':
    case 'uint16':
    case 'uint32':
      if (first.quoted || !/^\d+$/.test(first.text)) throw new Error(`${spec.name} must be a number, got "${first.text}"`);
      return Number(first.text);
    case 'name':
      return first.text === '.' ? '.' : toAbsolute(first.text, origin);
    case 'charstring':
    case 'value':
      return first.text.includes('\\') ? unescapeBytes(first.text).toString('utf8') : first.text;
    case 'charstrings':
      // Each token is one string, exactly as written (a long text split over several strings stays split).
      return formatCharStrings(tokens.map((t) => unescapeBytes(t.text)));
    case 'hex':
    case 'base64':
      return tokens.map((t) => t.text).join('');
    case 'loc':
    case 'svcparams':
      return tokens.map((t) => t.text).join(' ');
    default:
      return first.text;
  }
}

/** Base64 with the unused bits of its last character cleared (RFC 4648 §3.5), as BIND requires. */
export function canonicalBase64(value: string): string {
  return Buffer.from(value, 'base64').toString('base64');
}
