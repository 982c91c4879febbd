// POST /otp, /magiclink and /recover: who gets which mail, what the links and codes do.
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, fragmentOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer();
});
afterAll(async () => server?.close());

/** A confirmed account, made through the sign-up + confirmation flow. */
async function confirmedAccount() {
  const email = uniqueEmail('confirmed');
  await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
  const mail = await server.smtp.nextMessageTo(email);
  const res = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) } });
  expect(res.status).toBe(200);
  server.clock.advance(61); // past SMTP_MAX_FREQUENCY for the next mail
  return { email, session: res.body };
}

describe('POST /otp and /magiclink', () => {
  it('an unknown email is signed up and sent a confirmation (type signup; "email" verifies it)', async () => {
    const email = uniqueEmail('otp-new');
    const res = await call(server.url, 'POST', '/otp', { body: { email, data: { plan: 'pro' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mail = await server.smtp.nextMessageTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(linkOf(mail)).toContain('type=signup');
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'email', email, token: codeOf(mail) } });
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ email, user_metadata: { plan: 'pro' } });
    expect(verified.body.user.email_confirmed_at).toBeDefined();
  });

  it('create_user: false for an unknown email → 422 otp_disabled, and nothing is sent', async () => {
    const email = uniqueEmail('otp-none');
    const res = await call(server.url, 'POST', '/otp', { body: { email, create_user: false }, newShape: true });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 'otp_disabled', message: 'Signups not allowed for otp' });
    expect(server.smtp.pendingFor(email)).toHaveLength(0);
  });

  it('a confirmed user gets a magic link whose link signs in (type magiclink) and whose code works with type email', async () => {
    const { email } = await confirmedAccount();
    expect((await call(server.url, 'POST', '/otp', { body: { email, create_user: false } })).status).toBe(200);
    const mail = await server.smtp.nextMessageTo(email);
    expect(mail.subject).toBe('Your sign-in link');
    const { status, location } = await follow(linkOf(mail), server.url);
    expect(status).toBe(303);
    expect(fragmentOf(location)).toMatchObject({ type: 'magiclink', token_type: 'bearer' });

    server.clock.advance(61);
    expect((await call(server.url, 'POST', '/magiclink', { body: { email } })).status).toBe(200);
    const second = await server.smtp.nextMessageTo(email);
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'email', email, token: codeOf(second) } });
    expect(verified.status).toBe(200);
    expect(verified.body.type).toBe('magiclink');
  });

  it('concurrent first requests for one new address create one user and never fail with 5xx', async () => {
    const email = uniqueEmail('otp-race');
    const results = await Promise.all([1, 2, 3].map(() => call(server.url, 'POST', '/otp', { body: { email } })));
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const users = await server.deps.db.selectFrom('auth.users').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(1);
    await server.smtp.nextMessageTo(email);
  });

  it('rejects bad input with 400', async () => {
    expect((await call(server.url, 'POST', '/otp', { body: {} })).status).toBe(400);
    expect((await call(server.url, 'POST', '/otp', { body: { email: 'not-an-email' } })).body.error_code).toBe('validation_failed');
    expect((await call(server.url, 'POST', '/magiclink', { body: { email: '' } })).status).toBe(400);
    const badPkce = await call(server.url, 'POST', '/otp', { body: { email: uniqueEmail(), code_challenge: 'short', code_challenge_method: 's256' } });
    expect(badPkce.status).toBe(400);
  });
});

describe('POST /recover', () => {
  it('sends a recovery mail whose link signs in with type recovery', async () => {
    const { email } = await confirmedAccount();
    const res = await call(server.url, 'POST', '/recover', { body: { email } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mail = await server.smtp.nextMessageTo(email);
    expect(mail.subject).toBe('Reset your password');
    expect(linkOf(mail)).toContain('type=recovery');
    const { location } = await follow(linkOf(mail), server.url);
    const fragment = fragmentOf(location);
    expect(fragment.type).toBe('recovery');
    // The recovery session may set a new password.
    const update = await call(server.url, 'PUT', '/user', { token: fragment.access_token, body: { password: 'brand-new-pass' } });
    expect(update.status).toBe(200);
    expect((await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'brand-new-pass' } })).status).toBe(200);
  });

  it('an unknown email gets the same 200 {} and no mail, after taking the same email budget', async () => {
    const email = uniqueEmail('recover-none');
    const connectionsBefore = server.smtp.connections();
    const res = await call(server.url, 'POST', '/recover', { body: { email } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(server.smtp.pendingFor(email)).toHaveLength(0);
    expect(server.smtp.connections()).toBe(connectionsBefore);
    const logged = await server.deps.db.selectFrom('auth.email_send_log').select(['kind', 'user_id']).where('recipient', '=', email).execute();
    expect(logged).toEqual([{ kind: 'recovery', user_id: null }]);
  });

  it('a password change clears a pending recovery token', async () => {
    const account = await signUpConfirmedWithSession();
    await call(server.url, 'POST', '/recover', { body: { email: account.email } });
    const mail = await server.smtp.nextMessageTo(account.email);
    const update = await call(server.url, 'PUT', '/user', { token: account.session.access_token, body: { password: 'another-pass-1' } });
    expect(update.status).toBe(200);
    const res = await call(server.url, 'POST', '/verify', { body: { type: 'recovery', email: account.email, token: codeOf(mail) } });
    expect(res.status).toBe(403);
  });
});

async function signUpConfirmedWithSession() {
  const { email, session } = await confirmedAccount();
  return { email, session };
}

describe('notifications', () => {
  it('sends nothing for a password change while the switch is off', async () => {
    const { email, session } = await confirmedAccount();
    await call(server.url, 'PUT', '/user', { token: session.access_token, body: { password: 'changed-pass-1' } });
    expect(server.smtp.pendingFor(email)).toHaveLength(0);
  });
});
