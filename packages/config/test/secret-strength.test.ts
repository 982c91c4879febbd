// Production HMAC secrets (issue 39): short, repeated or few-character values are refused by both services,
// with the setting named; random values from openssl pass.
import { randomBytes } from 'node:crypto';
import { loadAuthConfig, weakKeyReason, weakSecretReason } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const production = (env: Record<string, string>) =>
  configError(() => loadAuthConfig({ env: { ...MINIMAL_ENV, AUTH_MAILER_AUTOCONFIRM: 'true', ...env }, cwd: tempDir(), production: true })).problems;

it('passes random secrets and refuses short, repeated and example ones', () => {
  for (let i = 0; i < 200; i += 1) {
    expect(weakSecretReason(randomBytes(16).toString('hex'))).toBeUndefined();
    expect(weakSecretReason(randomBytes(32).toString('base64'))).toBeUndefined();
    expect(weakKeyReason(randomBytes(32))).toBeUndefined();
  }
  expect(weakSecretReason('short')).toBe('expected at least 32 characters in production');
  for (const weak of ['x'.repeat(40), 'changeme'.repeat(4), '0123456789abcdef'.repeat(2), 'a'.repeat(39) + 'b',
    'your-super-secret-jwt-token-with-at-least-32-characters-long']) {
    expect(weakSecretReason(weak)).toMatch(/^too predictable for production/);
  }
  expect(weakKeyReason(Buffer.alloc(32, 7))).toMatch(/^too predictable/);
  expect(weakKeyReason(randomBytes(16))).toBe('expected a key of at least 32 bytes in production');
});

it('auth server: production refuses a short or patterned JWT_SECRET, HS256 JWK or hook secret, naming the setting', () => {
  expect(production({ AUTH_JWT_SECRET: 'short' })).toEqual(['AUTH_JWT_SECRET: expected at least 32 characters in production']);
  expect(production({ AUTH_JWT_SECRET: 'y'.repeat(40) })).toEqual([expect.stringMatching(/^AUTH_JWT_SECRET: too predictable for production/)]);
  // Outside production the same value is accepted (tests and the quick start).
  expect(loadAuthConfig({ env: { ...MINIMAL_ENV, AUTH_JWT_SECRET: 'short' }, cwd: tempDir() }).jwt.secret).toBe('short');
  const oct = (k: Buffer) => JSON.stringify([{ kty: 'oct', kid: 'h1', alg: 'HS256', key_ops: ['sign', 'verify'], k: k.toString('base64url') }]);
  expect(production({ AUTH_JWT_KEYS: oct(randomBytes(8)) })).toEqual(['AUTH_JWT_KEYS[0] (kid "h1"): expected a key of at least 32 bytes in production']);
  expect(loadAuthConfig({ env: { ...MINIMAL_ENV, AUTH_MAILER_AUTOCONFIRM: 'true', AUTH_JWT_KEYS: oct(randomBytes(32)) }, cwd: tempDir(), production: true }).jwt.keys).toHaveLength(1);
  const hook = (secret: Buffer) => ({
    AUTH_HOOK_SEND_SMS_ENABLED: 'true', AUTH_HOOK_SEND_SMS_URI: 'https://hooks.example.com/sms', AUTH_HOOK_SEND_SMS_SECRETS: `v1,whsec_${secret.toString('base64')}`,
  });
  expect(production(hook(randomBytes(16)))).toEqual(['AUTH_HOOK_SEND_SMS_SECRETS: expected a key of at least 24 bytes in production']);
  expect(production(hook(Buffer.alloc(32, 1)))).toEqual([expect.stringMatching(/^AUTH_HOOK_SEND_SMS_SECRETS: too predictable/)]);
  expect(production({ AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: 'k'.repeat(40) }))
    .toEqual([expect.stringMatching(/^AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: too predictable/)]);
});
