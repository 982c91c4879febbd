// Domain-name helpers in presentation format. Names are kept absolute (trailing dot) and lowercase;
// a backslash escapes the next character or three decimal digits (RFC 1035 §5.1), so "a\.b" is one label.
import { FieldError, fieldError } from './errors';

export const MAX_NAME_OCTETS = 255;
export const MAX_LABEL_OCTETS = 63;

/** Splits a presentation name into its labels (escapes kept), without the root. "." and "" give []. */
export function splitLabels(name: string): string[] {
  if (name === '.') return [];
  if (!name.includes('\\')) {
    const labels = name.split('.');
    if (labels[labels.length - 1] === '') labels.pop();
    return labels;
  }
  const labels: string[] = [];
  let current = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i] as string;
    if (ch === '\\') {
      const digits = name.slice(i + 1, i + 4);
      const step = /^\d{3}$/.test(digits) ? 3 : 1;
      current += name.slice(i, i + 1 + step);
      i += step;
    } else if (ch === '.') {
      labels.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  if (current !== '') labels.push(current);
  return labels;
}

/** How many octets a presentation label stands for (escapes resolved). */
export function labelLength(label: string): number {
  return label.includes('\\') ? labelOctets(label).length : Buffer.byteLength(label, 'utf8');
}

/** The bytes a presentation label stands for (escapes resolved). */
export function labelOctets(label: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < label.length; i++) {
    const ch = label[i] as string;
    if (ch === '\\') {
      const digits = label.slice(i + 1, i + 4);
      if (/^\d{3}$/.test(digits)) {
        out.push(Number(digits));
        i += 3;
      } else if (i + 1 < label.length) {
        out.push(...Buffer.from(label[i + 1] as string, 'utf8'));
        i += 1;
      }
    } else {
      out.push(...Buffer.from(ch, 'utf8'));
    }
  }
  return out;
}

/** An absolute name in uncompressed wire form (RFC 1035 §3.1): length-prefixed labels, then the root. */
export function nameToWire(name: string): Buffer {
  const labels = name === '.' ? [] : splitLabels(name);
  return Buffer.concat([...labels.map((l) => { const o = labelOctets(l); return Buffer.from([o.length, ...o]); }), Buffer.from([0])]);
}

/** True when the name ends with an unescaped dot (or is the root). */
export function isAbsolute(name: string): boolean {
  if (!name.endsWith('.')) return false;
  let backslashes = 0;
  for (let i = name.length - 2; i >= 0 && name[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** Lowercases ASCII letters only; escapes and other bytes stay as written. */
export function normalizeName(name: string): string {
  return /[A-Z]/.test(name) ? name.replace(/[A-Z]/g, (c) => c.toLowerCase()) : name;
}

/** Makes a name absolute within origin: "@" is the origin, "www" → "www.<origin>", absolute stays. */
export function toAbsolute(name: string, origin: string): string {
  const o = normalizeName(ensureTrailingDot(origin));
  if (name === '@' || name === '') return o;
  if (isAbsolute(name)) return normalizeName(name);
  return normalizeName(o === '.' ? `${name}.` : `${name}.${o}`);
}

export function ensureTrailingDot(name: string): string {
  return isAbsolute(name) ? name : `${name}.`;
}

/** Whether an absolute name equals the zone or lies below it (label-wise, case-insensitive). */
export function isInZone(name: string, zone: string): boolean {
  if (zone === '.' || zone === name) return true;
  if (!/[A-Z\\]/.test(name + zone)) return name.endsWith(`.${zone}`);
  const n = splitLabels(normalizeName(name));
  const z = splitLabels(normalizeName(zone));
  if (z.length > n.length) return false;
  const offset = n.length - z.length;
  return z.every((label, i) => n[offset + i] === label);
}

/** The owner written relative to origin for a zone file: "@" at the apex, "www" below it, else absolute. */
export function relativeTo(name: string, origin: string): string {
  const n = normalizeName(name);
  const o = normalizeName(origin);
  if (n === o) return '@';
  // The common case, cheaply: a plain suffix match on a label boundary that is not an escaped dot.
  if (o !== '.' && n.endsWith(`.${o}`) && !n.endsWith(`\\.${o}`)) return n.slice(0, n.length - o.length - 1);
  if (o !== '.' && isInZone(n, o)) {
    const labels = splitLabels(n);
    return labels.slice(0, labels.length - splitLabels(o).length).join('.');
  }
  return n;
}

/** Wire length of an absolute name: one length octet per label plus its bytes, plus the root. */
export function wireLength(name: string): number {
  return splitLabels(name).reduce((sum, label) => sum + 1 + labelLength(label), 1);
}

export interface NameRules {
  /** a leading "*" label is allowed (owners only) */
  wildcard?: boolean;
  /** the root "." is allowed (null MX, SRV "no service", SVCB target) */
  root?: boolean;
  /** SOA RNAME: the first label is a mailbox local part and may hold any (escaped) character */
  mailbox?: boolean;
}

const HOST_LABEL = /^[a-z0-9_/-]+$/i;
/** A host name's label (RFC 952/1123): letters, digits, and "-" inside. */
const LDH_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;

/** Whether a presentation label is a host name's label (what BIND's check-names wants). */
export function isHostLabel(label: string): boolean {
  return LDH_LABEL.test(label);
}

/**
 * Checks an absolute name against the hostname rules (reference §7.1): trailing dot, labels of 1–63
 * octets, at most 255 octets, letters/digits/"-"/"_"/"/" only, "*" only as the whole leftmost label.
 */
export function checkName(field: string, name: unknown, rules: NameRules = {}): FieldError[] {
  if (typeof name !== 'string' || name === '') return [fieldError(field, 'required', `${field} is required`)];
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return [fieldError(field, 'control_character', `${field} may not contain control characters (write them as \\DDD)`)];
  }
  if (!isAbsolute(name)) {
    return [fieldError(field, 'fqdn', `${field} must be fully qualified (end with a dot): "${name}"`)];
  }
  if (name === '.') {
    return rules.root ? [] : [fieldError(field, 'root', `${field} may not be the root "."`)];
  }
  if (/^\.|\.\.$|[^\\]\.\./.test(name)) {
    return [fieldError(field, 'empty_label', `${field} has an empty label: "${name}"`)];
  }
  const errors: FieldError[] = [];
  const labels = splitLabels(name);
  labels.forEach((label, i) => {
    if (labelLength(label) > MAX_LABEL_OCTETS) {
      errors.push(fieldError(field, 'label_length', `${field} has a label longer than 63 octets: "${label}"`));
    }
    if (label === '*') {
      if (!rules.wildcard || i !== 0) {
        errors.push(fieldError(field, 'wildcard', `${field} may use "*" only as its leftmost label${rules.wildcard ? '' : ' of an owner'}`));
      }
    } else if (rules.mailbox && i === 0) {
      // Written unescaped into the zone file, these end the name or open a comment or a group: BIND refuses the zone.
      if (/[\s;()"]/.test(label)) {
        errors.push(fieldError(field, 'mailbox', `${field} may not hold spaces, ";", "(", ")" or '"' in its mailbox: "${label}"`));
      }
    } else if (!HOST_LABEL.test(label)) {
      errors.push(fieldError(field, 'hostname', `${field} may hold only letters, digits, "-", "_" and "/" in its labels: "${label}"`));
    } else if (rules.mailbox && !LDH_LABEL.test(label)) {
      // BIND's check-names (on for primary zones) refuses to load a zone whose SOA mailbox is at a name that is not
      // a host name ("bad name (check-names)"), e.g. hostmaster.0/26.2.0.192.in-addr.arpa.
      errors.push(fieldError(field, 'mailbox_domain', `${field} must be a mailbox at a host name (letters, digits, inner "-"), which BIND requires; "${label}" is not`));
    }
  });
  if (labels.reduce((sum, label) => sum + 1 + labelLength(label), 1) > MAX_NAME_OCTETS) {
    errors.push(fieldError(field, 'name_length', `${field} is longer than 255 octets`));
  }
  return errors;
}

/**
 * A zone's own name: a name by checkName that does not begin with "-". BIND and PowerDNS serve such a zone, but
 * the reload commands Keyzone runs for it (rndc, nsd-control, knotc with {zone}) would read the name as an option,
 * so the publisher never passes one, and a zone named so would never be published.
 */
export function checkZoneName(field: string, name: string): FieldError[] {
  const errors = checkName(field, name);
  if (errors.length === 0 && name.startsWith('-')) {
    errors.push(fieldError(field, 'leading_hyphen', `${field} may not begin with "-": a nameserver's reload command would read it as an option`));
  }
  return errors;
}

/**
 * BIND's check-names (on by default for primary zones): owners of A, AAAA and MX records and the names in
 * NS, MX, SRV (and reverse PTR) RDATA must be host names: letters, digits and inner hyphens only.
 */
export function checkHostName(field: string, name: string, wildcard = false): FieldError[] {
  if (name === '.') return [];
  const bad = splitLabels(name).find((label, i) => !(wildcard && i === 0 && label === '*') && !LDH_LABEL.test(label));
  return bad === undefined
    ? []
    : [fieldError(field, 'hostname_ldh', `${field} must be a host name (letters, digits, inner "-"); "${bad}" is not`)];
}

/** An IP address is never a hostname (CNAME, MX, SRV targets: reference §7.2). */
export function looksLikeIp(name: string): boolean {
  const bare = name.replace(/\.$/, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(bare) || (bare.includes(':') && /^[0-9a-f:.]+$/i.test(bare));
}
