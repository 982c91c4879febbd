// POST /token?grant_type=password: credentials, enumeration safety, confirmation and bans.
import bcrypt from 'bcrypt';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { claimsOf, signUp, uniqueEmail } from './helpers/users';

let server: TestServer; // autoconfirm on
let unconfirmed: TestServer; // confirmation required

beforeAll(async () => {
  [server, unconfirmed] = await Promise.all([
    startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', JWT_ISSUER: 'http://localhost:9999/auth/v1' } }),
    startTestServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), unconfirmed?.close()]);
});

describe('password grant', () => {
  it('signs in and returns a token response with a new session', async () => {
    const account = await signUp(server.url);
    server.clock.advance(60);
    const res = await call(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: account.email, password: account.password } });
    expect(res.status).toBe(200);
    const now = Math.floor(server.clock.now().getTime() / 1000);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, expires_at: now + 3600 });
    expect(res.body.weak_password).toBeUndefined();
    expect(res.body.user).toMatchObject({ id: account.user.id, email: account.email, last_sign_in_at: server.clock.now().toISOString() });
    const claims = claimsOf(res.body.access_token);
    expect(claims).toMatchObject({
      iss: 'http://localhost:9999/auth/v1', sub: account.user.id, aud: 'authenticated', role: 'authenticated',
      amr: [{ method: 'password', timestamp: now }], aal: 'aal1', is_anonymous: false, iat: now, exp: now + 3600,
    });
    expect(claims.session_id).not.toBe(claimsOf(account.access_token).session_id);
    // The session's AMR claim and identity sign-in time were written with it.
    const refreshed = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: res.body.refresh_token } });
    expect(claimsOf(refreshed.body.access_token)).toMatchObject({ session_id: claims.session_id, amr: [{ method: 'password', timestamp: now }] });
    expect(res.body.user.identities[0].last_sign_in_at).toBe(server.clock.now().toISOString());
    const identity = await server.deps.db.selectFrom('auth.identities').select('last_sign_in_at').where('user_id', '=', account.user.id).executeTakeFirstOrThrow();
    expect(identity.last_sign_in_at).toEqual(server.clock.now());
    const audit = await server.deps.db.selectFrom('auth.audit_log_entries').select(['payload', 'ip_address']).execute();
    const logins = audit.filter((r) => (r.payload as Record<string, unknown>).actor_id === account.user.id && (r.payload as Record<string, unknown>).action === 'login');
    expect(logins.length).toBe(2);
    expect(logins[1]?.ip_address).toBe('127.0.0.1');
  });

  it('accepts grant_type and credentials from a form body', async () => {
    const account = await signUp(server.url);
    const form = new URLSearchParams({ grant_type: 'password', email: account.email, password: account.password }).toString();
    const res = await call(server.url, 'POST', '/token', { rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(account.user.id);
  });

  it('an unknown email and a wrong password give the same 400 invalid_credentials', async () => {
    const account = await signUp(server.url);
    const wrong = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: 'wrong-password' } });
    const unknown = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: uniqueEmail('nobody'), password: 'wrong-password' } });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
      expect(res.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    }
    const fresh = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: 'nope-nope' }, newShape: true });
    expect(fresh.body).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
  });

  it('missing credentials are invalid_credentials too', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: uniqueEmail() } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'invalid_credentials' });
  });

  it('an unconfirmed email is 400 email_not_confirmed', async () => {
    const email = uniqueEmail();
    await call(unconfirmed.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    const res = await call(unconfirmed.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'email_not_confirmed', msg: 'Email not confirmed' });
  });

  it('a banned user is 400 user_banned', async () => {
    const account = await signUp(server.url);
    const until = new Date(server.clock.now().getTime() + 3600_000);
    await server.deps.db.updateTable('auth.users').set({ banned_until: until }).where('id', '=', account.user.id).execute();
    const res = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: account.password }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'user_banned', message: 'User is banned' });
    server.clock.advance(3601); // the ban runs out
    const later = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: account.password } });
    expect(later.status).toBe(200);
  });

  it('a correct password that fails the current policy signs in with weak_password', async () => {
    const account = await signUp(server.url);
    await server.deps.db.updateTable('auth.users').set({ encrypted_password: await bcrypt.hash('abc', 4) }).where('id', '=', account.user.id).execute();
    const res = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: 'abc' } });
    expect(res.status).toBe(200);
    expect(res.body.weak_password).toEqual({ message: 'Password should be at least 6 characters.', reasons: ['length'] });
  });
});

describe('providers', () => {
  it('phone sign-in with the phone provider off is 422 phone_provider_disabled', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=password', { body: { phone: '+15551234567', password: 'password-123' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, error_code: 'phone_provider_disabled', msg: 'Phone logins are disabled' });
  });

  it('email sign-in with the email provider off is 422 email_provider_disabled', async () => {
    const noEmail = await startTestServer({ env: { EXTERNAL_EMAIL_ENABLED: 'false' } });
    try {
      const res = await call(noEmail.url, 'POST', '/token?grant_type=password', { body: { email: uniqueEmail(), password: 'password-123' }, newShape: true });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 'email_provider_disabled', message: 'Email logins are disabled' });
    } finally {
      await noEmail.close();
    }
  });
});

describe('grant types', () => {
  it('an unknown grant_type is 400 invalid_credentials', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=magic', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'invalid_credentials' });
  });

  it('a missing refresh_token is 400 validation_failed', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'validation_failed', msg: 'Refresh token is not valid' });
  });

  it('a malformed refresh token is 400 validation_failed, an unknown one refresh_token_not_found', async () => {
    const bad = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: 'ABC' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error_code: 'validation_failed' });
    const unknown = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: 'abcdefghijkl' }, newShape: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ code: 'refresh_token_not_found', message: 'Invalid Refresh Token: Refresh Token Not Found' });
  });
});
