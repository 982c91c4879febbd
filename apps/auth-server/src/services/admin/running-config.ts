// The running settings for GET /admin/config (the admin console's settings screen): the loaded configuration tree
// with every secret masked. Masking is by shape as well as by name, so a secret in a setting added later is still
// hidden: strings under secret-like names, PEM blocks anywhere, and the password and query values of any URL.
import type { AuthConfig } from '@keyzone/config';

export const MASK = '********';

const SECRET_NAME = /(secret|pass$|password$|token$|apikey|accesskey|privatekey|keymaterial|keys$|sid$|pem$)/i;

function maskUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.password) {
    url.password = MASK;
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    url.searchParams.set(name, MASK);
    changed = true;
  }
  return changed ? url.toString() : text;
}

function masked(name: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (SECRET_NAME.test(name) && (typeof value === 'string' || Array.isArray(value))) return MASK;
  if (typeof value === 'string') return /-----BEGIN [A-Z ]+-----/.test(value) ? MASK : maskUrl(value);
  if (Array.isArray(value)) return value.map((item) => masked(name, item));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, masked(key, inner)]));
  }
  return null;
}

/** The configuration as it runs, secrets masked (numbers and switches are never secret and are shown). */
export function maskedConfig(config: AuthConfig): Record<string, unknown> {
  return masked('', config) as Record<string, unknown>;
}
