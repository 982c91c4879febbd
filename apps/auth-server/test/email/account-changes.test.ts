// /invite, /reauthenticate + PUT /user {password, nonce}, PUT /user {email} (double confirmation,
// also under autoconfirm), and change notifications.
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, fragmentOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer; // confirmation required, reauthentication required, notifications on
let auto: EmailTestServer; // MAILER_AUTOCONFIRM=true

beforeAll(async () => {
  [server, auto] = await Promise.all([
    startEmailTestServer({
      env: {
        SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true',
        MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED: 'true',
        MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED: 'true',
        MAILER_SUBJECTS_INVITE: 'Join {{ .SiteURL }}',
      },
    }),
    startEmailTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } }),
  ]);
});
afterAll(async () => Promise.all([server?.close(), auto?.close()]));

async function confirmedSession(target: EmailTestServer, email = uniqueEmail('acct')) {
  const res = await call(target.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
  if (res.body.access_token) return { email, session: res.body };
  const mail = await target.smtp.nextMessageTo(email);
  const verified = await call(target.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) } });
  target.clock.advance(61);
  return { email, session: verified.body };
}

describe('POST /invite', () => {
  it('needs an admin or service role', async () => {
    expect((await call(server.url, 'POST', '/invite', { body: { email: uniqueEmail() } })).status).toBe(401);
    const { session } = await confirmedSession(server);
    const asUser = await call(server.url, 'POST', '/invite', { token: session.access_token, body: { email: uniqueEmail() } });
    expect(asUser.status).toBe(403);
    expect(asUser.body.error_code).toBe('not_admin');
  });

  it('creates the user, mails the invitation, and the link signs in with type invite', async () => {
    const email = uniqueEmail('invitee');
    const res = await call(server.url, 'POST', '/invite', { token: await server.adminToken(), body: { email, data: { team: 'ops' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email, invited_at: server.clock.now().toISOString(), user_metadata: { team: 'ops' } });
    expect(res.body.confirmation_sent_at).toBe(server.clock.now().toISOString());
    const mail = await server.smtp.nextMessageTo(email);
    expect(mail.subject).toBe('Join http://localhost:3000');
    expect(linkOf(mail)).toContain('type=invite');
    const { location } = await follow(linkOf(mail), server.url);
    const fragment = fragmentOf(location);
    expect(fragment.type).toBe('invite');
    // The invite session is a working session of a now confirmed user.
    const set = await call(server.url, 'PUT', '/user', { token: fragment.access_token, body: { data: { seen: true } } });
    expect(set.status).toBe(200);
    expect(set.body.email_confirmed_at).toBeDefined();

    const again = await call(server.url, 'POST', '/invite', { token: await server.adminToken(), body: { email } });
    expect(again.status).toBe(422);
    expect(again.body.error_code).toBe('email_exists');
  });
});

describe('verifying a user without a password', () => {
  it('sign-up verification needs a password; given one, it is set and works for sign-in', async () => {
    const email = uniqueEmail('no-password');
    await call(server.url, 'POST', '/invite', { token: await server.adminToken(), body: { email } });
    const mail = await server.smtp.nextMessageTo(email);
    const without = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) } });
    expect(without.status).toBe(422);
    expect(without.body.error_code).toBe('validation_failed');
    const weak = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail), password: '123' } });
    expect(weak.status).toBe(422);
    expect(weak.body.error_code).toBe('weak_password');
    // The refused attempts did not use the token up.
    const ok = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail), password: 'chosen-password' } });
    expect(ok.status).toBe(200);
    const signIn = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'chosen-password' } });
    expect(signIn.status).toBe(200);
  });
});

describe('GET /reauthenticate', () => {
  it('mails a nonce that PUT /user {password, nonce} requires', async () => {
    const { email, session } = await confirmedSession(server);
    const without = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { password: 'next-password-1' } });
    expect(without.status).toBe(400);
    expect(without.body.error_code).toBe('reauthentication_needed');

    const res = await call(server.url, 'GET', '/reauthenticate', { token: session.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mail = await server.smtp.nextMessageTo(email);
    const nonce = /code: (\d+)/.exec(mail.html)?.[1] ?? '';
    expect(mail.subject).toBe(`${nonce} is your verification code`);

    const wrong = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { password: 'next-password-1', nonce: '000000' } });
    expect(wrong.status).toBe(422);
    const ok = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { password: 'next-password-1', nonce } });
    expect(ok.status).toBe(200);
    const notice = await server.smtp.nextMessageTo(email);
    expect(notice.subject).toBe('Your password was changed');

    const early = await call(server.url, 'GET', '/reauthenticate', { token: session.access_token });
    expect(early.status).toBe(429);
  });
});

describe('PUT /user {email}', () => {
  it('needs both links (secure change); the first answers with the accepted message', async () => {
    const { email, session } = await confirmedSession(server);
    const newEmail = uniqueEmail('moved');
    const res = await call(server.url, 'PUT', '/user', { token: session.access_token, body: { email: newEmail } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email, new_email: newEmail, email_change_sent_at: server.clock.now().toISOString() });
    const toNew = await server.smtp.nextMessageTo(newEmail);
    const toOld = await server.smtp.nextMessageTo(email);
    expect(toNew.subject).toBe('Confirm your new email address');
    expect(toOld.html).toContain(`from ${email} to ${newEmail}`);

    const first = await follow(linkOf(toOld), server.url);
    expect(fragmentOf(first.location)).toEqual({
      message: 'Confirmation link accepted. Please proceed to confirm link sent to the other email',
      sb: '',
    });
    const unchanged = await call(server.url, 'GET', '/user', { token: session.access_token });
    expect(unchanged.body.email).toBe(email);

    const second = await call(server.url, 'POST', '/verify', { body: { type: 'email_change', email: newEmail, token: codeOf(toNew) } });
    expect(second.status).toBe(200);
    expect(second.body.user.email).toBe(newEmail);
    expect(second.body.user.new_email).toBeUndefined();
    const notice = await server.smtp.nextMessageTo(email);
    expect(notice.subject).toBe('Your email address was changed');
    const signIn = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: newEmail, password: 'password-123' } });
    expect(signIn.status).toBe(200);
  });

  it('/resend email_change re-sends both messages once SMTP_MAX_FREQUENCY has passed', async () => {
    const { email, session } = await confirmedSession(server);
    const newEmail = uniqueEmail('resent');
    await call(server.url, 'PUT', '/user', { token: session.access_token, body: { email: newEmail } });
    const firstNew = await server.smtp.nextMessageTo(newEmail);
    await server.smtp.nextMessageTo(email);
    expect((await call(server.url, 'POST', '/resend', { body: { type: 'email_change', email } })).status).toBe(429);
    server.clock.advance(60);
    expect((await call(server.url, 'POST', '/resend', { body: { type: 'email_change', email } })).status).toBe(200);
    const toNew = await server.smtp.nextMessageTo(newEmail);
    const toOld = await server.smtp.nextMessageTo(email);
    expect(codeOf(toNew)).not.toBe(codeOf(firstNew));
    await call(server.url, 'POST', '/verify', { body: { type: 'email_change', email, token: codeOf(toOld) } });
    const done = await call(server.url, 'POST', '/verify', { body: { type: 'email_change', email: newEmail, token: codeOf(toNew) } });
    expect(done.body.user.email).toBe(newEmail);
  });

  it('an address in use → 422 email_exists, nothing sent', async () => {
    const a = await confirmedSession(server);
    const b = await confirmedSession(server);
    const res = await call(server.url, 'PUT', '/user', { token: a.session.access_token, body: { email: b.email } });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe('email_exists');
    expect(server.smtp.pendingFor(b.email)).toHaveLength(0);
    expect(server.smtp.pendingFor(a.email)).toHaveLength(0);
  });

  it('still needs both confirmations with MAILER_AUTOCONFIRM on (GoTrue auth#2600 not copied)', async () => {
    const { email, session } = await confirmedSession(auto);
    const newEmail = uniqueEmail('auto-moved');
    const res = await call(auto.url, 'PUT', '/user', { token: session.access_token, body: { email: newEmail } });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(email);
    const toNew = await auto.smtp.nextMessageTo(newEmail);
    const toOld = await auto.smtp.nextMessageTo(email);
    const first = await call(auto.url, 'POST', '/verify', { body: { type: 'email_change', email: newEmail, token: codeOf(toNew) } });
    expect(first.body).toEqual({ msg: 'Confirmation link accepted. Please proceed to confirm link sent to the other email', code: '200' });
    const second = await call(auto.url, 'POST', '/verify', { body: { type: 'email_change', email, token: codeOf(toOld) } });
    expect(second.status).toBe(200);
    expect(second.body.user.email).toBe(newEmail);
  });
});
