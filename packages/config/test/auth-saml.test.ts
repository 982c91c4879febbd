// SAML settings (issue 30): GoTrue's SAML_* names, the service provider's key in GoTrue's form (base64 DER PKCS#1)
// or PEM, and a start refused, naming the setting, when SAML is on without a usable RSA key.
import { generateKeyPairSync } from 'node:crypto';
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>) => loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir() });
const problems = (env: Record<string, string>) => configError(() => load(env)).problems;
const rsa = (bits = 2048) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;

it('is off by default, with GoTrue\'s defaults', () => {
  expect(load({}).saml).toEqual({
    enabled: false, privateKeyPem: undefined, allowEncryptedAssertions: false, relayStateValiditySeconds: 120,
    externalUrl: 'http://localhost:8081', rateLimitAssertion: 15, metadataRefreshSeconds: 86400,
  });
  expect(load({}).rateLimit.sso).toBe(30);
});

it('takes the key as GoTrue does (base64 DER PKCS#1) and as PEM, and the other settings', () => {
  const key = rsa();
  const der = key.export({ format: 'der', type: 'pkcs1' }).toString('base64');
  const fromDer = load({ GOTRUE_SAML_ENABLED: 'true', GOTRUE_SAML_PRIVATE_KEY: der, GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD: '5m' }).saml;
  expect(fromDer).toMatchObject({ enabled: true, relayStateValiditySeconds: 300, privateKeyPem: expect.stringContaining('BEGIN PRIVATE KEY') });
  const pem = key.export({ format: 'pem', type: 'pkcs1' }) as string;
  const fromPem = load({
    AUTH_SAML_ENABLED: 'true', AUTH_SAML_PRIVATE_KEY: pem.replace(/\n/g, '\\n'), AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS: 'true',
    AUTH_SAML_EXTERNAL_URL: 'https://sso.example.com/auth/v1/', AUTH_SAML_RATE_LIMIT_ASSERTION: '40',
  }).saml;
  expect(fromPem).toMatchObject({ allowEncryptedAssertions: true, externalUrl: 'https://sso.example.com/auth/v1', rateLimitAssertion: 40 });
  expect(fromPem.privateKeyPem).toBe(fromDer.privateKeyPem);
});

it('refuses to start with SAML on and no key, a malformed key, a short key or a key that is not RSA, never echoing it', () => {
  expect(problems({ AUTH_SAML_ENABLED: 'true' })).toEqual([expect.stringMatching(/^AUTH_SAML_PRIVATE_KEY: required when AUTH_SAML_ENABLED=true/)]);
  expect(problems({ AUTH_SAML_ENABLED: 'true', AUTH_SAML_PRIVATE_KEY: 'bm90IGEga2V5' })).toEqual([expect.stringMatching(/^AUTH_SAML_PRIVATE_KEY: expected an RSA private key/)]);
  const short = rsa(1024).export({ format: 'der', type: 'pkcs1' }).toString('base64');
  expect(problems({ AUTH_SAML_PRIVATE_KEY: short })).toEqual(['AUTH_SAML_PRIVATE_KEY: expected an RSA key of at least 2048 bits (this one has 1024)']);
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const found = problems({ AUTH_SAML_PRIVATE_KEY: ec, AUTH_SAML_RELAY_STATE_VALIDITY_PERIOD: '0' });
  expect(found).toEqual([
    expect.stringMatching(/^AUTH_SAML_PRIVATE_KEY: expected an RSA private key \(/),
    expect.stringMatching(/^AUTH_SAML_RELAY_STATE_VALIDITY_PERIOD: expected a duration above 0/),
  ]);
  expect(found.join(' ')).not.toContain('BEGIN');
});
