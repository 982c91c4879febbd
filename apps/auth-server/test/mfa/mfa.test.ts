// Multi-factor authentication over HTTP: TOTP with auth-js (enroll, challenge, verify with a code computed
// from the secret, AAL, unenroll), the rules around AAL2, the errors, phone factors with a real (test) SMS
// API, the admin factor routes and the notification emails.
import { AuthClient } from '@supabase/auth-js';
import { startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { call } from '../helpers/http';
import { startSmsProvider, type FakeSmsProvider } from '../helpers/sms-provider';
import { authenticatorCode } from '../helpers/totp';
import { claimsOf, uniqueEmail } from '../helpers/users';

let server: EmailTestServer;
let sms: FakeSmsProvider;

beforeAll(async () => {
  sms = await startSmsProvider('twilio');
  server = await startEmailTestServer({
    env: {
      ...sms.env,
      EXTERNAL_PHONE_ENABLED: 'false',
      MAILER_AUTOCONFIRM: 'true',
      MFA_PHONE_ENROLL_ENABLED: 'true',
      MFA_PHONE_VERIFY_ENABLED: 'true',
      MFA_MAX_ENROLLED_FACTORS: '3',
      SECURITY_SB_FORWARDED_FOR_ENABLED: 'true',
      MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED: 'true',
      MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED: 'true',
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sms?.close();
});

function client() {
  const items = new Map<string, string>();
  return new AuthClient({
    url: `${server.url}/auth/v1`,
    storage: { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) },
    persistSession: true, autoRefreshToken: false, detectSessionInUrl: false,
  });
}

async function newUser() {
  const email = uniqueEmail('mfa');
  const password = 'mfa-password-1';
  const signup = await call(server.url, 'POST', '/signup', { body: { email, password } });
  expect(signup.status).toBe(200);
  return { email, password };
}

const signIn = async (email: string, password: string) => (await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password } })).body;
const code = (secret: string) => authenticatorCode(secret, server.clock.now());
/** The next 30-second step: a TOTP code is accepted once. */
const nextStep = () => server.clock.advance(30);

it('auth-js: enroll TOTP, challenge, verify with the authenticator code, reach AAL2, unenroll', async () => {
  const { email, password } = await newUser();
  const auth = client();
  expect((await auth.signInWithPassword({ email, password })).error).toBeNull();
  const other = await signIn(email, password); // a second AAL1 session, ended by the verification

  const enrolled = await auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator', issuer: 'Keyzone' });
  expect(enrolled.error).toBeNull();
  const { id: factorId, totp } = enrolled.data as { id: string; totp: { qr_code: string; secret: string; uri: string } };
  expect(totp.secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(totp.uri).toBe(`otpauth://totp/Keyzone:${encodeURIComponent(email)}?secret=${totp.secret}&issuer=Keyzone`);
  expect(totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg/);
  expect((await auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal1' });

  const challenge = await auth.mfa.challenge({ factorId });
  expect(challenge.error).toBeNull();
  expect(challenge.data).toMatchObject({ type: 'totp', expires_at: Math.floor(server.clock.now().getTime() / 1000) + 300 });
  const verified = await auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code: code(totp.secret) });
  expect(verified.error).toBeNull();
  const claims = claimsOf(verified.data!.access_token);
  expect(claims.aal).toBe('aal2');
  expect((claims.amr as Array<{ method: string }>).map((a) => a.method)).toEqual(['password', 'totp']);
  expect((await auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
  expect((await auth.mfa.listFactors()).data?.totp).toEqual([expect.objectContaining({ id: factorId, status: 'verified', friendly_name: 'Authenticator' })]);
  expect((await server.smtp.nextMessageTo(email)).subject).toBe('A new verification method was added to your account');

  // The other AAL1 session ended; the AAL2 one refreshes as AAL2.
  expect((await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: other.refresh_token } })).status).toBe(400);
  const refreshed = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: verified.data!.refresh_token } });
  expect(claimsOf(refreshed.body.access_token).aal).toBe('aal2');

  // A fresh sign-in is AAL1 with AAL2 to reach.
  const aal1 = await signIn(email, password);
  expect(claimsOf(aal1.access_token).aal).toBe('aal1');
  expect(aal1.user.factors).toEqual([expect.objectContaining({ id: factorId, factor_type: 'totp', status: 'verified' })]);
  const put = await call(server.url, 'PUT', '/user', { token: aal1.access_token, body: { password: 'another-password-2' } });
  expect(put.status).toBe(401);
  expect(put.body).toMatchObject({ error_code: 'insufficient_aal' });
  expect((await call(server.url, 'POST', '/factors', { token: aal1.access_token, body: { factor_type: 'totp' } })).body).toMatchObject({ error_code: 'insufficient_aal' });
  const denied = await call(server.url, 'DELETE', `/factors/${factorId}`, { token: aal1.access_token });
  expect([denied.status, denied.body.error_code]).toEqual([422, 'insufficient_aal']);

  const unenrolled = await auth.mfa.unenroll({ factorId });
  expect(unenrolled.error).toBeNull();
  expect(unenrolled.data).toEqual({ id: factorId });
  expect((await server.smtp.nextMessageTo(email)).subject).toBe('A verification method was removed from your account');
  expect((await call(server.url, 'GET', '/user', { token: aal1.access_token })).body.factors).toBeUndefined();
});

describe('verification failures', () => {
  async function enrolledTotp() {
    const { email, password } = await newUser();
    const session = await signIn(email, password);
    const factor = (await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp' } })).body;
    return { token: session.access_token as string, factor };
  }
  const challengeOf = async (token: string, factorId: string, ip = '203.0.113.1') =>
    (await call(server.url, 'POST', `/factors/${factorId}/challenge`, { token, headers: { 'sb-forwarded-for': ip } })).body.id as string;
  const verifyWith = (token: string, factorId: string, challengeId: string, value: string, ip = '203.0.113.1') =>
    call(server.url, 'POST', `/factors/${factorId}/verify`, { token, body: { challenge_id: challengeId, code: value }, headers: { 'sb-forwarded-for': ip } });

  it('a wrong code, a reused code, an expired challenge and another IP are refused', async () => {
    const { token, factor } = await enrolledTotp();
    const secret = factor.totp.secret as string;
    const wrong = await verifyWith(token, factor.id, await challengeOf(token, factor.id), code(secret) === '000000' ? '111111' : '000000');
    expect([wrong.status, wrong.body.error_code]).toEqual([422, 'mfa_verification_failed']);

    const otherIp = await verifyWith(token, factor.id, await challengeOf(token, factor.id, '203.0.113.1'), code(secret), '198.51.100.7');
    expect([otherIp.status, otherIp.body.error_code]).toEqual([422, 'mfa_ip_address_mismatch']);

    const stale = await challengeOf(token, factor.id);
    server.clock.advance(301);
    expect((await verifyWith(token, factor.id, stale, code(secret))).body.error_code).toBe('mfa_challenge_expired');

    const used = code(secret);
    const ok = await verifyWith(token, factor.id, await challengeOf(token, factor.id), used);
    expect(ok.status).toBe(200);
    const replay = await verifyWith(ok.body.access_token, factor.id, await challengeOf(ok.body.access_token, factor.id), used);
    expect([replay.status, replay.body.error_code]).toEqual([422, 'mfa_verification_failed']);
    nextStep();
    expect((await verifyWith(ok.body.access_token, factor.id, await challengeOf(ok.body.access_token, factor.id), code(secret))).status).toBe(200);
  });

  it('names conflict, counts are limited, abandoned enrollments are purged, unknown factors are 404', async () => {
    const { email, password } = await newUser();
    const token = (await signIn(email, password)).access_token;
    const enroll = (name: string) => call(server.url, 'POST', '/factors', { token, body: { factor_type: 'totp', friendly_name: name } });
    expect((await enroll('one')).status).toBe(200);
    expect((await enroll('one')).body).toMatchObject({ error_code: 'mfa_factor_name_conflict' });
    expect((await enroll('two')).status).toBe(200);
    expect((await enroll('three')).status).toBe(200);
    expect((await enroll('four')).body).toMatchObject({ error_code: 'too_many_enrolled_mfa_factors' });
    server.clock.advance(301);
    expect((await enroll('one')).status).toBe(200); // the never-challenged ones were purged
    expect((await call(server.url, 'POST', `/factors/${crypto.randomUUID()}/challenge`, { token })).body).toMatchObject({ error_code: 'mfa_factor_not_found' });
    expect((await call(server.url, 'POST', '/factors/not-a-uuid/challenge', { token })).status).toBe(404);
    expect((await call(server.url, 'POST', '/factors', { token, body: { factor_type: 'webauthn' } })).body.error_code).toBe('mfa_webauthn_enroll_not_enabled');
    expect((await call(server.url, 'POST', '/factors', { token, body: { factor_type: 'u2f' } })).status).toBe(400);
  });
});

it('phone factor: the code comes by SMS, verifies to AAL2 with mfa/phone, and a second code waits MFA_PHONE_MAX_FREQUENCY', async () => {
  const { email, password } = await newUser();
  const session = await signIn(email, password);
  const factor = (await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'phone', phone: '+15557770001', friendly_name: 'mobile' } })).body;
  expect(factor).toMatchObject({ type: 'phone', phone: '15557770001', friendly_name: 'mobile' });
  const challenge = await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token: session.access_token, body: { channel: 'sms' } });
  expect(challenge.status).toBe(200);
  const again = await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token: session.access_token });
  expect([again.status, again.body.error_code]).toEqual([429, 'over_sms_send_rate_limit']);
  const verified = await call(server.url, 'POST', `/factors/${factor.id}/verify`, { token: session.access_token, body: { challenge_id: challenge.body.id, code: sms.lastCode('15557770001') } });
  expect(verified.status).toBe(200);
  expect((claimsOf(verified.body.access_token).amr as Array<{ method: string }>).map((a) => a.method)).toContain('mfa/phone');
});

it('admin: lists, renames and deletes a user\'s factors', async () => {
  const { email, password } = await newUser();
  const session = await signIn(email, password);
  const factor = (await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp', friendly_name: 'old' } })).body;
  const admin = await server.adminToken();
  const userId = session.user.id;
  const listed = await call(server.url, 'GET', `/admin/users/${userId}/factors`, { token: admin });
  expect(listed.body).toEqual([expect.objectContaining({ id: factor.id, friendly_name: 'old', factor_type: 'totp', status: 'unverified' })]);
  expect(JSON.stringify(listed.body)).not.toContain(factor.totp.secret);
  const renamed = await call(server.url, 'PUT', `/admin/users/${userId}/factors/${factor.id}`, { token: admin, body: { friendly_name: 'new' } });
  expect(renamed.body).toMatchObject({ id: factor.id, friendly_name: 'new' });
  expect((await call(server.url, 'DELETE', `/admin/users/${userId}/factors/${factor.id}`, { token: admin })).body).toMatchObject({ id: factor.id });
  expect((await call(server.url, 'GET', `/admin/users/${userId}/factors`, { token: admin })).body).toEqual([]);
  expect((await call(server.url, 'DELETE', `/admin/users/${userId}/factors/${factor.id}`, { token: admin })).status).toBe(404);
  expect((await call(server.url, 'GET', `/admin/users/${userId}/factors`, { token: session.access_token })).status).toBe(403);
});
