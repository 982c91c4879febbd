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
  | 'svcparams'    // SVCB/HTTPS key=value list, checked by the svcb module
  | 'gateway'      // IPSECKEY gateway: "." (none), an IPv4 or IPv6 address, or a domain name
  | 'names'        // HIP rendezvous servers: domain names separated by spaces, none at all allowed
  | 'apl';         // APL: [!]afi:address/prefix items separated by spaces (RFC 3123 §5)

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  /** name fields: the root "." is allowed */
  root?: boolean;
  /** name fields: must be a host name per BIND check-names (NS, MX, SRV targets) */
  host?: boolean;
  /** name fields: a mailbox (any first label, then a host name), which BIND's check-names wants of RP's mbox */
  mailbox?: boolean;
  /**
   * numeric fields whose presentation format also allows a mnemonic (CERT's type "PKIX", a DNSSEC algorithm
   * "ECDSAP256SHA256"): accepted in either form, case-insensitively, and stored as the number.
   */
  mnemonics?: Readonly<Record<string, number>>;
  /** hex and base64 fields: one token in zone files, where further fields follow (HIP), not the rest of the line */
  oneToken?: boolean;
  /** base64 fields: may be absent or empty (IPSECKEY without a key), stored as "" */
  optional?: boolean;
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
  if ((value === undefined || value === null) && (kind === 'svcparams' || kind === 'names' || spec.optional)) return { value: '', errors: [] };
  if (value === undefined || value === null) return { errors: [fieldError(name, 'required', `${name} is required`)] };
  if (isNumericKind(kind)) {
    const max = UINT_MAX[kind] as number;
    if (typeof value === 'string' && spec.mnemonics) {
      const number = numberOfMnemonic(spec.mnemonics, value);
      if (number === undefined || number > max) {
        return { errors: [fieldError(name, 'mnemonic', `${name} must be an integer from 0 to ${max} or one of ${Object.keys(spec.mnemonics).join(', ')}`)] };
      }
      return { value: number, errors: [] };
    }
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
      const errors = checkName(name, value, { root: spec.root, mailbox: spec.mailbox });
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
      if (compact === '' && spec.optional) return { value: '', errors: [] };
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact) || compact === '') {
        return { errors: [fieldError(name, 'base64', `${name} must be base64 (RFC 4648)`)] };
      }
      // BIND refuses the whole zone when the bits after the last byte are not zero (RFC 4648 §3.5 canonical form).
      const canonical = canonicalBase64(compact);
      return canonical === compact
        ? { value: compact, errors: [] }
        : { errors: [fieldError(name, 'base64_padding', `${name} has non-zero padding bits; its canonical form ends "${canonical.slice(-4)}"`)] };
    }
    case 'gateway':
      return checkGateway(name, value);
    case 'names': {
      const names = value.trim() === '' ? [] : value.trim().split(/\s+/);
      const errors = names.flatMap((n) => checkName(name, n));
      return errors.length ? { errors } : { value: names.map(normalizeName).join(' '), errors: [] };
    }
    case 'apl':
      return checkApl(name, value);
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
export function takesRest(kind: FieldKind, spec?: Pick<FieldSpec, 'oneToken'>): boolean {
  if (spec?.oneToken) return false;
  return kind === 'charstrings' || kind === 'hex' || kind === 'base64' || kind === 'loc' || kind === 'svcparams' || kind === 'names' || kind === 'apl';
}

/** Reads one field from its token(s); names are made absolute in origin. Throws an Error with the reason. */
export function fieldFromBind(spec: FieldSpec, tokens: Token[], origin: string): RdataValue {
  const first = tokens[0];
  if (!first) throw new Error(`missing ${spec.name}`);
  switch (spec.kind) {
    case 'uint8':
    case 'uint16':
    case 'uint32': {
      const mnemonic = spec.mnemonics && !first.quoted ? numberOfMnemonic(spec.mnemonics, first.text) : undefined;
      if (mnemonic !== undefined) return mnemonic;
      if (first.quoted || !/^\d+$/.test(first.text)) throw new Error(`${spec.name} must be a number, got "${first.text}"`);
      return Number(first.text);
    }
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
    case 'gateway':
      return first.text === '.' || isIpv4(first.text) || canonicalIpv6(first.text) ? first.text : toAbsolute(first.text, origin);
    case 'names':
      return tokens.filter((t) => t.text !== '').map((t) => toAbsolute(t.text, origin)).join(' ');
    case 'loc':
    case 'svcparams':
    case 'apl':
      return tokens.map((t) => t.text).join(' ');
    default:
      return first.text;
  }
}

/** IPSECKEY's gateway: "." for none, an address (IPv6 in RFC 5952 form), or an absolute domain name. */
function checkGateway(name: string, value: string): { value?: RdataValue; errors: FieldError[] } {
  if (value === '.' || isIpv4(value)) return { value, errors: [] };
  const v6 = canonicalIpv6(value);
  if (v6) return { value: v6, errors: [] };
  if (looksLikeIp(value)) return { errors: [fieldError(name, 'gateway', `${name} must be ".", an IPv4 or IPv6 address, or a domain name: "${value}"`)] };
  const errors = checkName(name, value);
  return errors.length ? { errors } : { value: normalizeName(value), errors: [] };
}

/**
 * APL items (RFC 3123 §5): "[!]1:<IPv4>/<0-32>" or "[!]2:<IPv6>/<0-128>", separated by spaces; at least one.
 * Stored with IPv6 in RFC 5952 form. Address bits beyond the prefix are allowed, as BIND allows them.
 */
function checkApl(name: string, value: string): { value?: RdataValue; errors: FieldError[] } {
  const items = value.trim() === '' ? [] : value.trim().split(/\s+/);
  const bad = (why: string) => ({ errors: [fieldError(name, 'apl', `${name} ${why} (RFC 3123: [!]1:192.0.2.0/24 or [!]2:2001:db8::/32, separated by spaces)`)] });
  if (items.length === 0) return bad('needs at least one item');
  const out: string[] = [];
  for (const item of items) {
    const m = /^(!?)([12]):([^/]+)\/(\d{1,3})$/.exec(item);
    if (!m) return bad(`has a malformed item "${item}"`);
    const [, negation, afi, address, prefixText] = m as unknown as [string, string, string, string, string];
    const prefix = Number(prefixText);
    let text: string;
    if (afi === '1') {
      if (!isIpv4(address) || prefix > 32) return bad(`has a bad IPv4 item "${item}"`);
      text = address;
    } else {
      const v6 = canonicalIpv6(address);
      if (!v6 || prefix > 128) return bad(`has a bad IPv6 item "${item}"`);
      text = v6;
    }
    out.push(`${negation}${afi}:${text}/${prefix}`);
  }
  return { value: out.join(' '), errors: [] };
}

/** The number a mnemonic (any case) or a decimal string stands for; undefined when it is neither. */
export function numberOfMnemonic(mnemonics: Readonly<Record<string, number>>, text: string): number | undefined {
  if (/^\d{1,10}$/.test(text)) return Number(text);
  return Object.hasOwn(mnemonics, text.toUpperCase()) ? mnemonics[text.toUpperCase()] : undefined;
}

/** Base64 with the unused bits of its last character cleared (RFC 4648 §3.5), as BIND requires. */
export function canonicalBase64(value: string): string {
  return Buffer.from(value, 'base64').toString('base64');
}
