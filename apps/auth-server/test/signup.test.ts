// POST /signup: email + password, anonymous, duplicates, and the switches that turn it off.
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { claimsOf, uniqueEmail } from './helpers/users';

let confirmOn: TestServer; // MAILER_AUTOCONFIRM=true, anonymous sign-ins on
let confirmOff: TestServer; // confirmation required, no mailer

beforeAll(async () => {
  [confirmOn, confirmOff] = await Promise.all([
    startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true' } }),
    startTestServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([confirmOn?.close(), confirmOff?.close()]);
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('with autoconfirm', () => {
  it('returns a token response with the full user', async () => {
    const email = uniqueEmail();
    const res = await call(confirmOn.url, 'POST', '/auth/v1/signup', {
      body: { email: email.toUpperCase(), password: 'password-123', data: { full_name: 'Ada' } },
    });
    expect(res.status).toBe(200);
    const now = Math.floor(confirmOn.clock.now().getTime() / 1000);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, expires_at: now + 3600 });
    expect(res.body.refresh_token).toMatch(/^[a-z0-9]{12}$/);
    const user = res.body.user;
    expect(Object.keys(user)).toEqual([
      'id', 'aud', 'role', 'email', 'email_confirmed_at', 'phone', 'confirmed_at', 'last_sign_in_at',
      'app_metadata', 'user_metadata', 'identities', 'created_at', 'updated_at', 'is_anonymous',
    ]);
    expect(user).toMatchObject({
      aud: 'authenticated', role: 'authenticated', email, phone: '',
      app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: { full_name: 'Ada' }, is_anonymous: false,
    });
    expect(user.email_confirmed_at).toMatch(ISO);
    expect(user.identities).toHaveLength(1);
    expect(user.identities[0]).toMatchObject({
      identity_id: expect.any(String), id: user.id, user_id: user.id, provider: 'email', email,
      identity_data: { sub: user.id, email, email_verified: false, phone_verified: false, full_name: 'Ada' },
    });
    expect(user.identities[0].identity_id).not.toBe(user.id);

    const claims = claimsOf(res.body.access_token);
    expect(claims).toMatchObject({
      sub: user.id, aud: 'authenticated', email, phone: '', role: 'authenticated', aal: 'aal1', is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] }, user_metadata: { full_name: 'Ada' },
      amr: [{ method: 'password', timestamp: now }], session_id: expect.any(String),
    });
    expect(claims.exp).toBe((claims.iat as number) + 3600);
    expect(claims.iss).toBeUndefined();
  });

  it('a duplicate is 400 user_already_exists "User already registered" in both shapes', async () => {
    const email = uniqueEmail();
    await call(confirmOn.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    const legacy = await call(confirmOn.url, 'POST', '/signup', { body: { email, password: 'password-456' } });
    expect(legacy.status).toBe(400);
    expect(legacy.body).toEqual({ code: 400, error_code: 'user_already_exists', msg: 'User already registered' });
    const fresh = await call(confirmOn.url, 'POST', '/signup', { body: { email, password: 'password-456' }, newShape: true });
    expect(fresh.body).toEqual({ code: 'user_already_exists', message: 'User already registered' });
  });

  it('writes an audit row for the sign-up and the login', async () => {
    const email = uniqueEmail();
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    const rows = await confirmOn.deps.db.selectFrom('auth.audit_log_entries').select(['payload']).execute();
    const mine = rows.map((r) => r.payload as Record<string, unknown>).filter((p) => p.actor_id === res.body.user.id);
    expect(mine.map((p) => p.action).sort()).toEqual(['login', 'user_signedup']);
    expect(mine[0]).toMatchObject({ actor_username: email, actor_via_sso: false });
  });
});

describe('without autoconfirm', () => {
  it('returns the bare user, unconfirmed, without confirmation_sent_at when no mailer exists', async () => {
    const email = uniqueEmail();
    const res = await call(confirmOff.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeUndefined();
    expect(res.body).toMatchObject({ email, phone: '', is_anonymous: false });
    expect(res.body.email_confirmed_at).toBeUndefined();
    expect(res.body.confirmation_sent_at).toBeUndefined();
    expect(res.body.identities).toHaveLength(1);
  });

  it('a duplicate of a confirmed user is a 200 fabricated user with no identities', async () => {
    const email = uniqueEmail();
    const first = await call(confirmOff.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    await confirmOff.deps.db.updateTable('auth.users').set({ email_confirmed_at: new Date() }).where('id', '=', first.body.id).execute();
    const dup = await call(confirmOff.url, 'POST', '/signup', { body: { email, password: 'password-999' } });
    expect(dup.status).toBe(200);
    expect(dup.body.id).not.toBe(first.body.id);
    expect(dup.body.identities).toEqual([]);
    expect(dup.body.email).toBe(email);
    expect(dup.body.access_token).toBeUndefined();
    const count = await confirmOff.deps.db.selectFrom('auth.users').select((eb) => eb.fn.countAll().as('n')).where('email', '=', email).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('a duplicate of an unconfirmed user returns that same user', async () => {
    const email = uniqueEmail();
    const first = await call(confirmOff.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    const again = await call(confirmOff.url, 'POST', '/signup', { body: { email, password: 'password-123', data: { a: 1 } } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.user_metadata).toEqual({ a: 1 });
  });
});

describe('anonymous sign-in', () => {
  it('an empty email and phone signs in anonymously with a session', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { data: { theme: 'dark' } } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email: '', phone: '', is_anonymous: true, app_metadata: {}, user_metadata: { theme: 'dark' }, identities: [] });
    const claims = claimsOf(res.body.access_token);
    expect(claims).toMatchObject({ is_anonymous: true, amr: [{ method: 'anonymous', timestamp: expect.any(Number) }], role: 'authenticated' });
  });

  it('is 422 anonymous_provider_disabled when off', async () => {
    const res = await call(confirmOff.url, 'POST', '/signup', { body: {} });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, error_code: 'anonymous_provider_disabled', msg: 'Anonymous sign-ins are disabled' });
  });
});

describe('validation and switches', () => {
  it('a weak password is 422 weak_password with reasons, in both shapes', async () => {
    const legacy = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: '123' } });
    expect(legacy.status).toBe(422);
    expect(legacy.body).toEqual({
      code: 422, error_code: 'weak_password', msg: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] },
    });
    const fresh = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: '123' }, newShape: true });
    expect(fresh.body).toEqual({ code: 'weak_password', message: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] } });
  });

  it('a password over 72 bytes is 400 validation_failed', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: 'é'.repeat(37) } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'validation_failed' });
  });

  it('a bad email is 400 validation_failed', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email: 'not-an-email', password: 'password-123' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'validation_failed', msg: 'Unable to validate email address: invalid format' });
  });

  it('both email and phone is 400 validation_failed', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail(), phone: '15551234567', password: 'password-123' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'validation_failed' });
  });

  it('a missing password is 400 validation_failed', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail() } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'validation_failed', msg: 'Signup requires a valid password' });
  });

  it('data must be an object', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: 'password-123', data: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'validation_failed' });
  });
});

describe('switches', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({ env: { DISABLE_SIGNUP: 'true' } });
  });
  afterAll(async () => {
    await off?.close();
  });

  it('DISABLE_SIGNUP is 422 signup_disabled', async () => {
    const res = await call(off.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: 'password-123' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, error_code: 'signup_disabled', msg: 'Signups not allowed for this instance' });
  });

  it('EXTERNAL_EMAIL_ENABLED=false is 400 email_provider_disabled', async () => {
    const noEmail = await startTestServer({ env: { EXTERNAL_EMAIL_ENABLED: 'false' } });
    try {
      const res = await call(noEmail.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: 'password-123' }, newShape: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'email_provider_disabled', message: 'Email signups are disabled' });
    } finally {
      await noEmail.close();
    }
  });

  it('PASSWORD_REQUIRED_CHARACTERS and PASSWORD_MIN_LENGTH give both reasons', async () => {
    const strict = await startTestServer({ env: { PASSWORD_MIN_LENGTH: '10', PASSWORD_REQUIRED_CHARACTERS: 'abc:0123456789' } });
    try {
      const res = await call(strict.url, 'POST', '/signup', { body: { email: uniqueEmail(), password: 'xyzxyz' } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error_code: 'weak_password', weak_password: { reasons: ['length', 'characters'] } });
      expect((res.body as { msg: string }).msg).toBe(
        'Password should be at least 10 characters. Password should contain at least one character of each: abc, 0123456789.',
      );
    } finally {
      await strict.close();
    }
  });
});

describe('phone sign-up', () => {
  let phoneOn: TestServer;
  beforeAll(async () => {
    phoneOn = await startTestServer({ env: { EXTERNAL_PHONE_ENABLED: 'true', SMS_AUTOCONFIRM: 'true' } });
  });
  afterAll(async () => {
    await phoneOn?.close();
  });

  it('is 400 phone_provider_disabled when the phone provider is off', async () => {
    const res = await call(confirmOn.url, 'POST', '/signup', { body: { phone: '+15551230000', password: 'password-123' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'phone_provider_disabled', msg: 'Phone signups are disabled' });
  });

  it('with SMS_AUTOCONFIRM returns a session; the phone is stored without +; password sign-in works', async () => {
    const phone = `1555${String(Date.now()).slice(-7)}`;
    const res = await call(phoneOn.url, 'POST', '/signup', { body: { phone: `+${phone}`, password: 'password-123' } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ phone, email: '', app_metadata: { provider: 'phone', providers: ['phone'] } });
    expect(res.body.user.phone_confirmed_at).toMatch(ISO);
    expect(res.body.user.identities[0]).toMatchObject({ provider: 'phone', identity_data: { phone, phone_verified: false } });
    expect(claimsOf(res.body.access_token)).toMatchObject({ phone, email: '' });
    const login = await call(phoneOn.url, 'POST', '/token?grant_type=password', { body: { phone: `+${phone}`, password: 'password-123' } });
    expect(login.status).toBe(200);
    const dup = await call(phoneOn.url, 'POST', '/signup', { body: { phone, password: 'password-123' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ error_code: 'user_already_exists' });
  });

  it('a malformed phone is 400 validation_failed', async () => {
    const res = await call(phoneOn.url, 'POST', '/signup', { body: { phone: 'abc', password: 'password-123' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'validation_failed' });
  });
});

describe('concurrent duplicates', () => {
  it('parallel sign-ups of one address: one account, the rest answered as duplicates, no 5xx', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call(confirmOn.url, 'POST', '/signup', { body: { email, password: 'password-123' } })),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.error_code === 'user_already_exists')).toBe(true);
    const rows = await confirmOn.deps.db.selectFrom('auth.users').select('id').where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
  });
});
