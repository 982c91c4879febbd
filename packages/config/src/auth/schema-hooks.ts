// Auth hooks (GoTrue's HOOK_<NAME>_ENABLED / _URI / _SECRETS): where each enabled hook is called. An HTTP hook
// needs at least one Standard Webhooks secret (`v1,whsec_<base64>`, several separated by `|` or `,` for rotation);
// `http://` is refused in production unless the host is this machine. A Postgres hook is
// `pg-functions://postgres/<schema>/<function>`.
import type { HookName, HooksConfig, HookTarget } from './schema';
import type { EnvReader } from './env-reader';
import { weakKeyReason } from '../secret-strength';

/** Setting name (HOOK_<NAME>_…) → config key. */
export const HOOK_SETTINGS: Record<string, HookName> = {
  CUSTOM_ACCESS_TOKEN: 'customAccessToken',
  SEND_EMAIL: 'sendEmail',
  SEND_SMS: 'sendSms',
  MFA_VERIFICATION_ATTEMPT: 'mfaVerificationAttempt',
  PASSWORD_VERIFICATION_ATTEMPT: 'passwordVerificationAttempt',
  BEFORE_USER_CREATED: 'beforeUserCreated',
};

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;
const SECRET = /^v1,whsec_([A-Za-z0-9+/]+={0,2})$/;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function readTarget(r: EnvReader, setting: string, production: boolean): HookTarget | undefined {
  const uriName = `HOOK_${setting}_URI`;
  const raw = r.string(uriName, { required: true })?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    r.problem(`${r.display(uriName)}: expected an https:// URL or pg-functions://postgres/<schema>/<function>, got "${raw}"`);
    return undefined;
  }
  if (url.protocol === 'pg-functions:') {
    const parts = url.pathname.split('/').filter(Boolean);
    if (url.host !== 'postgres' || parts.length !== 2 || !parts.every((p) => IDENTIFIER.test(p))) {
      r.problem(`${r.display(uriName)}: expected pg-functions://postgres/<schema>/<function> (plain SQL identifiers), got "${raw}"`);
      return undefined;
    }
    return { transport: 'postgres', schema: parts[0] as string, functionName: parts[1] as string };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    r.problem(`${r.display(uriName)}: expected an https:// URL or pg-functions://postgres/<schema>/<function>, got "${raw}"`);
    return undefined;
  }
  if (url.protocol === 'http:' && production && !LOCAL_HOSTS.has(url.hostname)) {
    r.problem(`${r.display(uriName)}: http:// is only allowed for localhost in production; use https://`);
    return undefined;
  }
  if (url.username || url.password) {
    r.problem(`${r.display(uriName)}: the URL may not carry credentials; the hook is authenticated by its signature`);
    return undefined;
  }
  const secretsName = `HOOK_${setting}_SECRETS`;
  const secrets = r.read(secretsName, 'secrets of the form v1,whsec_<base64>, separated by | (several for rotation)', (value) => {
    const list = value.split(/[|\s]+/).map((s) => s.trim()).filter(Boolean);
    // "v1,whsec_a,v1,whsec_b" (comma-separated) splits into the pairs it is made of.
    const pairs = list.flatMap((s) => s.match(/v1,whsec_[A-Za-z0-9+/]+={0,2}/g) ?? [s]);
    const keys = pairs.map((s) => SECRET.exec(s)?.[1]);
    return keys.length > 0 && keys.every((k) => k !== undefined && Buffer.from(k, 'base64').length >= 16) ? (keys as string[]) : undefined;
  });
  if (!secrets) {
    if (!r.isSet(secretsName)) r.problem(`${r.display(secretsName)}: required for an HTTP hook (a v1,whsec_<base64> secret of at least 16 bytes)`);
    return undefined;
  }
  if (production) {
    // Only the first secret signs, but the hook accepts any of them: each must hold up.
    const weak = secrets.map((key) => weakKeyReason(Buffer.from(key, 'base64'), 24)).find((reason) => reason !== undefined);
    if (weak) {
      r.problem(`${r.display(secretsName)}: ${weak}`);
      return undefined;
    }
  }
  return { transport: 'http', url: url.toString(), secrets };
}

export function readHooks(r: EnvReader, production: boolean): HooksConfig {
  const timeout = r.duration('HOOK_HTTP_TIMEOUT');
  if (timeout === 0) r.problem(`${r.display('HOOK_HTTP_TIMEOUT')}: expected a duration above 0 (e.g. 5s)`);
  const hooks: HooksConfig = { timeoutSeconds: timeout || 5 };
  for (const [setting, key] of Object.entries(HOOK_SETTINGS)) {
    if (!(r.bool(`HOOK_${setting}_ENABLED`) ?? false)) continue;
    const target = readTarget(r, setting, production);
    if (target) hooks[key] = target;
  }
  return hooks;
}
