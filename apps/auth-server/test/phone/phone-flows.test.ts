// Phone sign-in flows over HTTP with codes sent through a real (test) Twilio API: sign-up with a password,
// POST /otp, /verify, /resend, PUT /user {phone}, reauthentication by SMS, limits, expiry, SMS_TEST_OTP and
// auth-js.
import { AuthClient } from '@supabase/auth-js';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { startSmsProvider, type FakeSmsProvider } from '../helpers/sms-provider';

let provider: FakeSmsProvider;
let server: TestServer;
let seq = 0;
/** A fresh E.164 number (digits, no +) per use. */
const newPhone = () => `1555${String(process.pid % 1000).padStart(3, '0')}${String(++seq).padStart(4, '0')}`;

beforeAll(async () => {
  provider = await startSmsProvider('twilio');
  server = await startTestServer({
    env: {
      ...provider.env,
      SMS_TEST_OTP: '15550009999:123456',
      SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true',
      RATE_LIMIT_SMS_SENT: '1000',
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

const post = (path: string, body: unknown, token?: string) => call(server.url, 'POST', path, { body, token });
/** Moves past SMS_MAX_FREQUENCY (60 s) so the next send is allowed; codes live 60 s, so send after this. */
const later = () => server.clock.advance(61);

it('signs up with phone and password, confirms by SMS code, then signs in with the password', async () => {
  const phone = newPhone();
  const signup = await post('/signup', { phone: `+${phone}`, password: 'phone-password-1' });
  expect(signup.status).toBe(200);
  expect(signup.body.phone).toBe(phone);
  expect(signup.body.phone_confirmed_at).toBeUndefined();
  expect(signup.body.confirmation_sent_at).toBeDefined();
  expect((await post('/token?grant_type=password', { phone, password: 'phone-password-1' })).body).toMatchObject({ error_code: 'phone_not_confirmed' });
  const verified = await post('/verify', { type: 'sms', phone, token: provider.lastCode(phone) });
  expect(verified.status).toBe(200);
  const signedIn = await post('/token?grant_type=password', { phone: `+${phone}`, password: 'phone-password-1' });
  expect(signedIn.status).toBe(200);
  expect(signedIn.body.user.id).toBe(verified.body.user.id);
});

it('POST /otp: create_user false refuses an unknown number; a second send within SMS_MAX_FREQUENCY is 429', async () => {
  const phone = newPhone();
  const refused = await post('/otp', { phone, create_user: false });
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({ error_code: 'otp_disabled' });
  expect((await post('/otp', { phone })).status).toBe(200);
  const tooSoon = await post('/otp', { phone });
  expect(tooSoon.status).toBe(429);
  expect(tooSoon.body).toMatchObject({ error_code: 'over_sms_send_rate_limit' });
  later();
  expect((await post('/otp', { phone, create_user: false })).status).toBe(200);
});

it('POST /verify: a wrong or unknown number is 403 otp_expired, a malformed one 400, an expired code 403', async () => {
  const phone = newPhone();
  await post('/otp', { phone });
  const code = provider.lastCode(phone);
  expect((await post('/verify', { type: 'sms', phone: newPhone(), token: code })).body).toMatchObject({ error_code: 'otp_expired', msg: 'Token has expired or is invalid' });
  const malformed = await post('/verify', { type: 'sms', phone: '12ab', token: code });
  expect(malformed.status).toBe(400);
  expect(malformed.body).toMatchObject({ error_code: 'validation_failed', msg: 'Invalid phone number format (E.164 required)' });
  server.clock.advance(61);
  expect((await post('/verify', { type: 'sms', phone, token: code })).status).toBe(403);
});

it('the fifth wrong code burns the code', async () => {
  const phone = newPhone();
  await post('/otp', { phone });
  const code = provider.lastCode(phone);
  const wrong = code === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i += 1) expect((await post('/verify', { type: 'sms', phone, token: wrong })).status).toBe(403);
  expect((await post('/verify', { type: 'sms', phone, token: code })).status).toBe(403);
});

it('POST /resend sms sends a new code for a pending number; phone_change for an unknown number is 200 {}', async () => {
  const phone = newPhone();
  await post('/signup', { phone, password: 'phone-password-2' });
  const first = provider.lastCode(phone);
  later();
  const resent = await post('/resend', { type: 'sms', phone });
  expect(resent.status).toBe(200);
  expect(resent.body.message_id).toMatch(/^SM/);
  const second = provider.lastCode(phone);
  if (second !== first) expect((await post('/verify', { type: 'sms', phone, token: first })).status).toBe(403);
  expect((await post('/verify', { type: 'sms', phone, token: second })).status).toBe(200);
  const unknown = await post('/resend', { type: 'phone_change', phone: newPhone() });
  expect(unknown.status).toBe(200);
  expect(unknown.body).toEqual({});
});

it('PUT /user {phone} changes the number after its code; GET /reauthenticate sends the nonce by SMS', async () => {
  const phone = newPhone();
  await post('/otp', { phone });
  const session = (await post('/verify', { type: 'sms', phone, token: provider.lastCode(phone) })).body;
  const next = newPhone();
  const asked = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { phone: `+${next}` } });
  expect(asked.status).toBe(200);
  expect(asked.body).toMatchObject({ phone, new_phone: next });
  const changed = await post('/verify', { type: 'phone_change', phone: next, token: provider.lastCode(next) });
  expect(changed.status).toBe(200);
  expect(changed.body.user).toMatchObject({ phone: next });
  expect(changed.body.user.new_phone).toBeUndefined();

  // The user has no email: the reauthentication nonce comes by SMS to the (new) phone.
  const token = changed.body.access_token;
  expect((await call(server.url, 'PUT', '/user', { token, body: { password: 'brand-new-password' } })).body).toMatchObject({ error_code: 'reauthentication_needed' });
  later();
  expect((await call(server.url, 'GET', '/reauthenticate', { token })).status).toBe(200);
  const nonce = provider.lastCode(next);
  const updated = await call(server.url, 'PUT', '/user', { token, body: { password: 'brand-new-password', nonce } });
  expect(updated.status).toBe(200);
  expect((await post('/token?grant_type=password', { phone: next, password: 'brand-new-password' })).status).toBe(200);
});

it('a number taken by another user cannot be changed to', async () => {
  const taken = newPhone();
  await post('/otp', { phone: taken });
  await post('/verify', { type: 'sms', phone: taken, token: provider.lastCode(taken) });
  const phone = newPhone();
  await post('/otp', { phone });
  const session = (await post('/verify', { type: 'sms', phone, token: provider.lastCode(phone) })).body;
  const res = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { phone: taken } });
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ error_code: 'phone_exists' });
});

it('SMS_TEST_OTP numbers get their fixed code and no SMS', async () => {
  const before = provider.messages.length;
  expect((await post('/otp', { phone: '+15550009999' })).body).toEqual({ message_id: '' });
  expect(provider.messages.length).toBe(before);
  expect((await post('/verify', { type: 'sms', phone: '15550009999', token: '123456' })).status).toBe(200);

  // After SMS_TEST_OTP_VALID_UNTIL the number is an ordinary one again.
  const expired = await startTestServer({ env: { ...provider.env, SMS_TEST_OTP: '15550009998:123456', SMS_TEST_OTP_VALID_UNTIL: '2020-01-01T00:00:00Z' } });
  try {
    expect((await call(expired.url, 'POST', '/otp', { body: { phone: '15550009998' } })).body.message_id).toMatch(/^SM/);
    expect(provider.lastCode('15550009998')).toMatch(/^\d{6}$/);
  } finally {
    await expired.close();
  }
});

it('with phone sign-in off, the phone routes answer as GoTrue does (issue 26)', async () => {
  const off = await startTestServer();
  try {
    for (const [path, body, status, code, msg] of [
      ['/otp', { phone: '15551112222' }, 400, 'phone_provider_disabled', 'Unsupported phone provider'],
      ['/resend', { type: 'sms', phone: '15551112222' }, 400, 'phone_provider_disabled', 'Phone logins are disabled'],
      ['/signup', { phone: '15551112222', password: 'phone-password' }, 400, 'phone_provider_disabled', 'Phone signups are disabled'],
      // /verify checks the number, then finds no code: the same answers as with phone sign-in on
      ['/verify', { type: 'sms', phone: '15551112222', token: '123456' }, 403, 'otp_expired', 'Token has expired or is invalid'],
      ['/verify', { type: 'sms', phone: 'not-a-number', token: '123456' }, 400, 'validation_failed', 'Invalid phone number format (E.164 required)'],
    ] as const) {
      const res = await call(off.url, 'POST', path, { body });
      expect([path, res.status, res.body.error_code, res.body.msg]).toEqual([path, status, code, msg]);
    }
  } finally {
    await off.close();
  }
});

it('the service-wide SMS budget (RATE_LIMIT_SMS_SENT) is shared and ends in 429; half of it stays for confirmed numbers (issue 26)', async () => {
  const limited = await startTestServer({ env: { ...provider.env, RATE_LIMIT_SMS_SENT: '4' } });
  try {
    // A confirmed number, made before anyone pumps.
    const owner = newPhone();
    expect((await call(limited.url, 'POST', '/otp', { body: { phone: owner } })).status).toBe(200);
    const code = provider.lastCode(owner);
    expect((await call(limited.url, 'POST', '/verify', { body: { type: 'sms', phone: owner, token: code } })).status).toBe(200);
    // Made-up numbers get the unconfirmed half (2), the first of which the owner's sign-up used.
    expect((await call(limited.url, 'POST', '/otp', { body: { phone: newPhone() } })).status).toBe(200);
    const over = await call(limited.url, 'POST', '/otp', { body: { phone: newPhone() } });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error_code: 'over_sms_send_rate_limit', msg: 'SMS rate limit exceeded' });
    // The owner still gets a sign-in code, until the whole budget is spent.
    limited.clock.advance(61);
    expect((await call(limited.url, 'POST', '/otp', { body: { phone: owner } })).status).toBe(200);
    limited.clock.advance(61);
    expect((await call(limited.url, 'POST', '/otp', { body: { phone: owner } })).status).toBe(200);
  } finally {
    await limited.close();
  }
});

it('SMS budgets per client, per number and per user (issue 26): one client cannot send to numbers of its choosing', async () => {
  const limited = await startTestServer({
    env: { ...provider.env, RATE_LIMIT_SMS_SENT: '1000', RATE_LIMIT_SMS_SENT_PER_CLIENT: '3', RATE_LIMIT_SMS_SENT_PER_NUMBER: '2', RATE_LIMIT_HEADER: 'X-Real-Client' },
  });
  try {
    const from = (client: string, phone: string) => call(limited.url, 'POST', '/otp', { body: { phone }, headers: { 'x-real-client': client } });
    for (let i = 0; i < 3; i++) expect((await from('10.5.5.5', newPhone())).status).toBe(200);
    expect((await from('10.5.5.5', newPhone())).status).toBe(429);
    expect((await from('10.5.5.6', newPhone())).status).toBe(200); // another client
    const victim = newPhone();
    expect((await from('10.6.0.1', victim)).status).toBe(200);
    limited.clock.advance(61);
    expect((await from('10.6.0.2', victim)).status).toBe(200);
    limited.clock.advance(61);
    const third = await from('10.6.0.3', victim); // a third code to one number within the hour, from anywhere
    expect([third.status, third.body.error_code]).toEqual([429, 'over_sms_send_rate_limit']);
  } finally {
    await limited.close();
  }
});

it('auth-js: signUp, signInWithOtp and verifyOtp with a phone', async () => {
  const auth = new AuthClient({ url: `${server.url}/auth/v1`, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
  const phone = newPhone();
  const signUp = await auth.signUp({ phone: `+${phone}`, password: 'authjs-phone-pass' });
  expect(signUp.error).toBeNull();
  expect(signUp.data.session).toBeNull();
  const confirmed = await auth.verifyOtp({ phone, token: provider.lastCode(phone), type: 'sms' });
  expect(confirmed.error).toBeNull();
  expect(confirmed.data.user?.phone).toBe(phone);

  later();
  const otp = await auth.signInWithOtp({ phone: `+${phone}` });
  expect(otp.error).toBeNull();
  expect(otp.data.messageId).toMatch(/^SM/);
  const session = await auth.verifyOtp({ phone, token: provider.lastCode(phone), type: 'sms' });
  expect(session.error).toBeNull();
  expect(session.data.session?.access_token).toBeDefined();
});
