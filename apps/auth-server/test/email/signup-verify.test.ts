// Sign-up confirmation by email, then GET /verify (303 with fragment) and POST /verify (token
// response): real SMTP, real HTTP, real PostgreSQL.
import { hashOneTimeToken } from '@keyzone/tokens';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, fragmentOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { URI_ALLOW_LIST: 'https://app.example.com/**', MAILER_OTP_EXP: '3600' } });
});
afterAll(async () => server?.close());

async function signUpUnconfirmed(email = uniqueEmail('signup'), query = '') {
  const res = await call(server.url, 'POST', `/signup${query}`, { body: { email, password: 'password-123' } });
  expect(res.status).toBe(200);
  return { email, user: res.body, mail: await server.smtp.nextMessageTo(email) };
}

describe('sign-up confirmation', () => {
  it('someone who registered the address first does not keep a password to the account its owner confirms (issue 26)', async () => {
    const email = uniqueEmail('first');
    expect((await call(server.url, 'POST', '/signup', { body: { email, password: 'attacker-password' } })).status).toBe(200);
    await server.smtp.nextMessageTo(email); // the owner ignores the mail they did not ask for
    server.clock.advance(61);
    expect((await call(server.url, 'POST', '/signup', { body: { email, password: 'owner-password' } })).status).toBe(200);
    const confirmed = await follow(linkOf(await server.smtp.nextMessageTo(email)), server.url);
    expect(confirmed.location).toContain('access_token=');
    const attacker = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'attacker-password' } });
    expect(attacker.status).toBe(400);
    expect((await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'owner-password' } })).status).toBe(200);
  });

  it('mails a link and a code; the link signs in with a 303 to redirect_to and a token fragment', async () => {
    const { email, user, mail } = await signUpUnconfirmed(undefined, '?redirect_to=https://app.example.com/welcome');
    expect(user).toMatchObject({ email, confirmation_sent_at: server.clock.now().toISOString() });
    expect(user.access_token).toBeUndefined();
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.rawFrom).toBe('Keyzone <admin@keyzone.test>');
    const code = codeOf(mail);
    const link = linkOf(mail);
    const hash = hashOneTimeToken(email, code);
    expect(link).toBe(`http://localhost:9999/verify?token=${hash}&type=signup&redirect_to=https://app.example.com/welcome`);

    // A HEAD (mail scanners) does not use the link up.
    const head = await fetch(server.url + new URL(link).pathname + new URL(link).search, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(405);

    const { status, location } = await follow(link, server.url);
    expect(status).toBe(303);
    expect(location.startsWith('https://app.example.com/welcome#')).toBe(true);
    const fragment = fragmentOf(location);
    expect(fragment).toMatchObject({ token_type: 'bearer', type: 'signup', expires_in: '3600', sb: '' });
    const me = await call(server.url, 'GET', '/user', { token: fragment.access_token });
    expect(me.status).toBe(200);
    expect(me.body.email_confirmed_at).toBe(server.clock.now().toISOString());
    expect(me.body.identities[0].identity_data.email_verified).toBe(true);
    // Confirmed: password sign-in now works.
    const signIn = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } });
    expect(signIn.status).toBe(200);

    // The link is single use.
    const again = await follow(link, server.url);
    expect(fragmentOf(again.location)).toMatchObject({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
    });
  });

  it('POST /verify with email + code returns a token response with type; a reused code is 403 otp_expired', async () => {
    const { email, mail } = await signUpUnconfirmed();
    const token = codeOf(mail);
    const res = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'bearer', type: 'signup', user: { email } });
    expect(res.body.user.email_confirmed_at).toBeDefined();
    const reused = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token }, newShape: true });
    expect(reused.status).toBe(403);
    expect(reused.body).toEqual({ code: 'otp_expired', message: 'Token has expired or is invalid' });
  });

  it('POST /verify with token_hash; type "email" matches a confirmation token', async () => {
    const { email, mail } = await signUpUnconfirmed();
    const tokenHash = hashOneTimeToken(email, codeOf(mail));
    const res = await call(server.url, 'POST', '/verify', { body: { type: 'email', token_hash: tokenHash } });
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('signup');
  });

  it('an expired token is 403 otp_expired (the clock moves past MAILER_OTP_EXP)', async () => {
    const { email, mail } = await signUpUnconfirmed();
    server.clock.advance(3601);
    const res = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: 'otp_expired', msg: 'Token has expired or is invalid' });
    const link = await follow(linkOf(mail), server.url);
    expect(link.status).toBe(303);
    expect(fragmentOf(link.location).error_code).toBe('otp_expired');
  });

  it('a redirect_to outside the allow-list silently becomes SITE_URL', async () => {
    const { mail } = await signUpUnconfirmed(undefined, '?redirect_to=https://evil.com/?x=app.example.com');
    expect(linkOf(mail)).toMatch(/&redirect_to=http:\/\/localhost:3000$/);
    const { location } = await follow(linkOf(mail), server.url);
    expect(location.startsWith('http://localhost:3000#access_token=')).toBe(true);
  });

  it('validates POST /verify input', async () => {
    const noType = await call(server.url, 'POST', '/verify', { body: { token: '123456', email: 'a@b.co' } });
    expect(noType.status).toBe(400);
    expect(noType.body.error_code).toBe('validation_failed');
    const both = await call(server.url, 'POST', '/verify', { body: { type: 'signup', token_hash: 'abc', email: 'a@b.co' } });
    expect(both.status).toBe(400);
    const none = await call(server.url, 'POST', '/verify', { body: { type: 'signup' } });
    expect(none.status).toBe(400);
    const unknown = await call(server.url, 'POST', '/verify', { body: { type: 'signup', token_hash: 'nope' } });
    expect(unknown.status).toBe(403);
  });

  it('/resend signup re-sends to an unconfirmed user, respects SMTP_MAX_FREQUENCY, and says nothing for others', async () => {
    const { email, mail } = await signUpUnconfirmed();
    const early = await call(server.url, 'POST', '/resend', { body: { type: 'signup', email } });
    expect(early.status).toBe(429);
    expect(early.body).toMatchObject({ error_code: 'over_email_send_rate_limit', msg: 'For security purposes, you can only request this after 60 seconds.' });
    server.clock.advance(45);
    const stillEarly = await call(server.url, 'POST', '/resend', { body: { type: 'signup', email } });
    expect(stillEarly.body.msg).toBe('For security purposes, you can only request this after 15 seconds.');
    server.clock.advance(15);
    const res = await call(server.url, 'POST', '/resend', { body: { type: 'signup', email } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const second = await server.smtp.nextMessageTo(email);
    expect(codeOf(second)).not.toBe(codeOf(mail));
    // The first code was replaced.
    const old = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) } });
    expect(old.status).toBe(403);

    const unknown = await call(server.url, 'POST', '/resend', { body: { type: 'signup', email: uniqueEmail('nobody') } });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({});
    const badType = await call(server.url, 'POST', '/resend', { body: { type: 'recovery', email } });
    expect(badType.status).toBe(400);
  });
});
