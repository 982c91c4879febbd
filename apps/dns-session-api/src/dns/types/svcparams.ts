// SvcParams of SVCB and HTTPS records (RFC 9460 §2.1, §7): a space-separated "key=value" list, stored
// as text in canonical order (by key number) so that equal parameter sets compare equal.
import { FieldError, fieldError } from '../errors';
import { canonicalIpv6, isIpv4 } from '../ip';

const KEY_NUMBERS: Record<string, number> = {
  mandatory: 0, alpn: 1, 'no-default-alpn': 2, port: 3, ipv4hint: 4, ech: 5, ipv6hint: 6, dohpath: 7,
};

function keyNumber(key: string): number | undefined {
  if (key in KEY_NUMBERS) return KEY_NUMBERS[key];
  const m = /^key(\d{1,5})$/.exec(key);
  return m && Number(m[1]) < 65535 ? Number(m[1]) : undefined;
}

function keyName(n: number): string {
  return Object.keys(KEY_NUMBERS).find((k) => KEY_NUMBERS[k] === n) ?? `key${n}`;
}

/** Splits the presentation list into [key, value|undefined] pairs; quotes around a value are removed. */
export function splitParams(text: string): Array<[string, string | undefined]> {
  const pairs: Array<[string, string | undefined]> = [];
  const re = /([^\s=]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?/g;
  for (const m of text.matchAll(re)) {
    let value = m[2];
    if (value !== undefined && value.startsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    pairs.push([m[1] as string, value]);
  }
  return pairs;
}

const LIST_ITEM = /^[!-~]+$/;

function checkValue(key: string, value: string | undefined): { value?: string; error?: string } {
  if (key === 'no-default-alpn') return value === undefined || value === '' ? { value: undefined } : { error: 'takes no value' };
  if (value === undefined || value === '') return { error: 'needs a value' };
  const items = value.split(',');
  switch (key) {
    case 'port':
      return /^\d{1,5}$/.test(value) && Number(value) <= 65535 ? { value: String(Number(value)) } : { error: 'must be a port 0-65535' };
    case 'ipv4hint':
      return items.every(isIpv4) ? { value } : { error: 'must be a comma-separated list of IPv4 addresses' };
    case 'ipv6hint': {
      const canonical = items.map(canonicalIpv6);
      return canonical.every(Boolean) ? { value: canonical.join(',') } : { error: 'must be a comma-separated list of IPv6 addresses' };
    }
    case 'alpn':
    case 'mandatory':
      return items.every((i) => LIST_ITEM.test(i) && !/["\\]/.test(i)) ? { value } : { error: 'must be a comma-separated list' };
    case 'ech':
      return /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? { value } : { error: 'must be base64' };
    default:
      return /^[!-~]+$/.test(value) && !/["\\]/.test(value) ? { value } : { error: 'must be printable ASCII without quotes' };
  }
}

/** Checks and canonicalizes the params of a record with the given SvcPriority. */
export function checkSvcParams(params: string, priority: number): { value?: string; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const pairs = splitParams(params);
  if (priority === 0 && pairs.length > 0) {
    errors.push(fieldError('params', 'svcb_alias_params', 'a priority 0 (AliasMode) record takes no params'));
  }
  const seen = new Map<number, string | undefined>();
  for (const [key, raw] of pairs) {
    const n = keyNumber(key);
    if (n === undefined) {
      errors.push(fieldError('params', 'svcb_key', `unknown SvcParam key "${key}"`));
      continue;
    }
    if (seen.has(n)) {
      errors.push(fieldError('params', 'svcb_duplicate_key', `SvcParam key "${key}" appears twice`));
      continue;
    }
    const checked = checkValue(keyName(n), raw);
    if (checked.error) errors.push(fieldError('params', 'svcb_value', `SvcParam ${key} ${checked.error}`));
    seen.set(n, checked.value);
  }
  const mandatory = seen.get(0);
  if (mandatory !== undefined) {
    for (const key of mandatory.split(',')) {
      const n = keyNumber(key);
      if (n === 0) errors.push(fieldError('params', 'svcb_mandatory', 'mandatory may not list itself'));
      else if (n === undefined || !seen.has(n)) {
        errors.push(fieldError('params', 'svcb_mandatory', `mandatory lists "${key}", which is not present`));
      }
    }
  }
  if (seen.has(2) && !seen.has(1)) {
    errors.push(fieldError('params', 'svcb_no_default_alpn', 'no-default-alpn requires alpn'));
  }
  if (errors.length) return { errors };
  const value = [...seen.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, v]) => (v === undefined ? keyName(n) : `${keyName(n)}=${v.includes(',') && n === 1 ? `"${v}"` : v}`))
    .join(' ');
  return { value, errors };
}
