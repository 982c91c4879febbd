// Auth hook settings (issue 29): GoTrue's HOOK_<NAME>_ENABLED / _URI / _SECRETS, both transports, and every
// malformed value named in the start-up error.
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const SECRET = `v1,whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER = `v1,whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const load = (env: Record<string, string>, production = false) =>
  loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir(), production });
const problems = (env: Record<string, string>, production = false) => configError(() => load(env, production)).problems;

it('has no hook unless one is enabled; the HTTP timeout defaults to 5 s', () => {
  expect(load({ GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI: 'https://hooks.example.com/claims' }).hooks).toEqual({ timeoutSeconds: 5 });
});

it('reads an HTTP hook with rotated secrets and a Postgres function hook, by GOTRUE_ or AUTH_ names', () => {
  const c = load({
    GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true',
    GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI: 'https://hooks.example.com/claims',
    GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS: `${SECRET}|${OTHER}`,
    AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED: 'true',
    AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: 'pg-functions://postgres/public/password_attempt',
    AUTH_HOOK_HTTP_TIMEOUT: '2s',
  });
  expect(c.hooks).toEqual({
    timeoutSeconds: 2,
    customAccessToken: { transport: 'http', url: 'https://hooks.example.com/claims', secrets: [SECRET.slice(9), OTHER.slice(9)] },
    passwordVerificationAttempt: { transport: 'postgres', schema: 'public', functionName: 'password_attempt' },
  });
  expect(load({ AUTH_HOOK_SEND_SMS_ENABLED: '1', AUTH_HOOK_SEND_SMS_URI: 'http://127.0.0.1:9000/sms', AUTH_HOOK_SEND_SMS_SECRETS: `${SECRET},${OTHER}` }).hooks.sendSms)
    .toEqual({ transport: 'http', url: 'http://127.0.0.1:9000/sms', secrets: [SECRET.slice(9), OTHER.slice(9)] });
});

it('names every bad hook setting at once, never echoing a secret', () => {
  const found = problems({
    AUTH_HOOK_SEND_EMAIL_ENABLED: 'true',
    AUTH_HOOK_SEND_SMS_ENABLED: 'true', AUTH_HOOK_SEND_SMS_URI: 'ftp://example.com/x',
    AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true', AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: 'pg-functions://postgres/public/drop table',
    AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED: 'true', AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_URI: 'https://hooks.example.com/mfa',
    AUTH_HOOK_BEFORE_USER_CREATED_ENABLED: 'true', AUTH_HOOK_BEFORE_USER_CREATED_URI: 'https://hooks.example.com/new',
    AUTH_HOOK_BEFORE_USER_CREATED_SECRETS: 'whsec_not-this-one',
  });
  expect(found).toEqual(expect.arrayContaining([
    'AUTH_HOOK_SEND_EMAIL_URI: required',
    'AUTH_HOOK_SEND_SMS_URI: expected an https:// URL or pg-functions://postgres/<schema>/<function>, got "ftp://example.com/x"',
    'AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS: required for an HTTP hook (a v1,whsec_<base64> secret of at least 16 bytes)',
    'AUTH_HOOK_BEFORE_USER_CREATED_SECRETS: expected secrets of the form v1,whsec_<base64>, separated by | (several for rotation)',
  ]));
  expect(found).toHaveLength(5);
  expect(found.some((p) => p.startsWith('AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: expected pg-functions://postgres/<schema>/<function>'))).toBe(true);
  expect(found.join('\n')).not.toContain('not-this-one');
});

it('refuses http:// to another host in production, and credentials in the URL', () => {
  const http = { AUTH_HOOK_SEND_SMS_ENABLED: 'true', AUTH_HOOK_SEND_SMS_URI: 'http://hooks.example.com/sms', AUTH_HOOK_SEND_SMS_SECRETS: SECRET };
  expect(load(http).hooks.sendSms).toBeDefined();
  expect(problems(http, true)).toContain('AUTH_HOOK_SEND_SMS_URI: http:// is only allowed for localhost in production; use https://');
  expect(problems({ ...http, AUTH_HOOK_SEND_SMS_URI: 'https://user:pw@hooks.example.com/sms' })).toContain(
    'AUTH_HOOK_SEND_SMS_URI: the URL may not carry credentials; the hook is authenticated by its signature');
});
