// NicTool's values as Keyzone's: export types, password schemes, and the API's refusal of a field as a note.
import type { NameserverExportType } from '../dns';
import { ApiError } from '../errors';
import type { PasswordScheme } from '../services/access/passwords';
import type { NtUser } from './source';

/** NicTool's export types (nt_nameserver_export_type.name) → Keyzone's. */
export const EXPORT_TYPES: Record<string, NameserverExportType> = {
  djbdns: 'tinydns', tinydns: 'tinydns', bind: 'bind', 'bind-nsupdate': 'bind', powerdns: 'powerdns', nsd: 'nsd', knot: 'knot',
};

/** The scheme NicTool's authenticate would use for this stored value (reference §3, validPassword). */
export function nicToolPasswordScheme(user: Pick<NtUser, 'password' | 'salt'>): PasswordScheme {
  if (user.salt) return 'pbkdf2-sha512';
  if (/^[0-9a-f]{40}$/i.test(user.password)) return 'hmac-sha1';
  return 'plaintext';
}

/** The API's message when `check` refuses the fields (a 400 ApiError), else undefined. */
export function refusal(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
}
