// WebAuthn settings (issue 31): the relying party, GoTrue's MFA_WEB_AUTHN_* switches (off by default) and
// PASSKEY_ENABLED; any of them on without a relying party, or an origin not on the RP ID, stops the start.
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>) => loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir() });
const problems = (env: Record<string, string>) => configError(() => load(env)).problems;

it('is off by default', () => {
  expect(load({}).webauthn).toEqual({
    rpId: '', rpDisplayName: 'Keyzone', rpOrigins: [], mfaEnrollEnabled: false, mfaVerifyEnabled: false, passkeyEnabled: false,
  });
});

it('reads the relying party and the switches, by AUTH_ or GOTRUE_ names', () => {
  expect(load({
    GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true', GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED: 'true', AUTH_PASSKEY_ENABLED: 'true',
    AUTH_WEBAUTHN_RP_ID: 'Example.com', AUTH_WEBAUTHN_RP_DISPLAY_NAME: 'Example', AUTH_WEBAUTHN_RP_ORIGINS: 'https://example.com, https://app.example.com/',
  }).webauthn).toEqual({
    rpId: 'example.com', rpDisplayName: 'Example', rpOrigins: ['https://example.com', 'https://app.example.com'],
    mfaEnrollEnabled: true, mfaVerifyEnabled: true, passkeyEnabled: true,
  });
});

it('names what is missing or wrong', () => {
  expect(problems({ AUTH_PASSKEY_ENABLED: 'true' })).toEqual([
    'AUTH_WEBAUTHN_RP_ID: required when AUTH_PASSKEY_ENABLED is on',
    'AUTH_WEBAUTHN_RP_ORIGINS: required when AUTH_PASSKEY_ENABLED is on',
  ]);
  expect(problems({ AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true', AUTH_WEBAUTHN_RP_ID: 'https://example.com', AUTH_WEBAUTHN_RP_ORIGINS: 'example.com' })).toEqual([
    expect.stringMatching(/^AUTH_WEBAUTHN_RP_ID: expected a host name/),
    expect.stringMatching(/^AUTH_WEBAUTHN_RP_ORIGINS: expected a comma-separated list of origins/),
  ]);
  expect(problems({ AUTH_PASSKEY_ENABLED: 'true', AUTH_WEBAUTHN_RP_ID: 'example.com', AUTH_WEBAUTHN_RP_ORIGINS: 'https://example.org' })).toEqual([
    'AUTH_WEBAUTHN_RP_ORIGINS: https://example.org is not on example.com (AUTH_WEBAUTHN_RP_ID), so no browser would use the credentials there',
  ]);
});
