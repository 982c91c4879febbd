// Auth hooks over HTTP (issue 29), through @supabase/auth-js against the real server: every call is signed per
// Standard Webhooks and checked by the `standardwebhooks` package in the receiver (helpers/hook-receiver.ts).
import { AuthClient } from '@supabase/auth-js';
import { startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { call } from '../helpers/http';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver';
import { signInThroughProvider } from '../helpers/oauth-browser';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider';
import { authenticatorCode } from '../helpers/totp';
import { claimsOf, uniqueEmail } from '../helpers/users';

let hooks: HookReceiver;
let oidc: OidcProvider;
let server: EmailTestServer;
const PASSWORD = 'password-123';

const defaults = () => {
  hooks.on('/claims', ({ payload }) => ({ body: { claims: { ...(payload.claims as object), tenant_id: 'acme' } } }));
  hooks.on('/password', () => ({ body: { decision: 'continue' } }));
  hooks.on('/mfa', () => ({ body: { decision: 'continue' } }));
  hooks.on('/new-user', ({ payload }) => {
    const email = String((payload.user as { email?: string }).email ?? '');
    return email.endsWith('@blocked.example') ? { body: { error: { http_code: 403, message: 'This domain may not sign up' } } } : { body: {} };
  });
  hooks.on('/email', () => ({ body: {} }));
  hooks.on('/sms', () => ({ body: {} }));
};

beforeAll(async () => {
  [hooks, oidc] = await Promise.all([startHookReceiver(), startOidcProvider()]);
  defaults();
  const hook = (name: string, path: string) => ({
    [`HOOK_${name}_ENABLED`]: 'true', [`HOOK_${name}_URI`]: `${hooks.url}${path}`, [`HOOK_${name}_SECRETS`]: hooks.secret,
  });
  server = await startEmailTestServer({
    env: {
      ...hook('CUSTOM_ACCESS_TOKEN', '/claims'),
      ...hook('PASSWORD_VERIFICATION_ATTEMPT', '/password'),
      ...hook('MFA_VERIFICATION_ATTEMPT', '/mfa'),
      ...hook('BEFORE_USER_CREATED', '/new-user'),
      ...hook('SEND_EMAIL', '/email'),
      ...hook('SEND_SMS', '/sms'),
      // Long enough for a loaded CI machine; the timeout test waits three of them.
      HOOK_HTTP_TIMEOUT: '1s',
      EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
      EXTERNAL_PHONE_ENABLED: 'true',
      EXTERNAL_KEYCLOAK_ENABLED: 'true', EXTERNAL_KEYCLOAK_CLIENT_ID: 'keycloak-client', EXTERNAL_KEYCLOAK_SECRET: 'keycloak-secret',
      EXTERNAL_KEYCLOAK_REDIRECT_URI: 'http://localhost:9999/callback', EXTERNAL_KEYCLOAK_URL: oidc.url,
      MFA_TOTP_ENROLL_ENABLED: 'true', MFA_TOTP_VERIFY_ENABLED: 'true',
    },
  });
}, 90_000);

afterAll(async () => {
  await server?.close();
  await hooks?.close();
  await oidc?.close();
});

afterEach(defaults);

const client = () => new AuthClient({ url: server.url, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
const lastCall = (path: string) => hooks.callsTo(path).at(-1)?.payload as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const countRows = async (table: 'auth.users' | 'auth.sessions', column: 'email' | 'user_id', value: string) =>
  Number((await server.deps.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);

/** A confirmed user, signed up through auth-js with the code the send email hook received. */
async function confirmedUser(email = uniqueEmail('hooks')) {
  const auth = client();
  const signUp = await auth.signUp({ email, password: PASSWORD });
  expect(signUp.error).toBeNull();
  const mail = lastCall('/email');
  expect(mail.email_data).toMatchObject({ email_action_type: 'signup', site_url: server.deps.config.api.externalUrl, token_new: '', token_hash_new: '' });
  expect(mail.user).toMatchObject({ email, id: signUp.data.user!.id });
  const verified = await auth.verifyOtp({ email, token: mail.email_data.token, type: 'signup' });
  expect(verified.error).toBeNull();
  return { auth, email, userId: signUp.data.user!.id, session: verified.data.session! };
}

describe('custom access token', () => {
  it("puts the hook's claims into every token it signs (e-mail code, password, refresh, anonymous) and getClaims shows them", async () => {
    const { auth, email, userId, session } = await confirmedUser();
    expect(claimsOf(session.access_token).tenant_id).toBe('acme');
    expect((await auth.getClaims()).data?.claims).toMatchObject({ tenant_id: 'acme', sub: userId });

    const signIn = await auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    expect(claimsOf(signIn.data.session!.access_token)).toMatchObject({ tenant_id: 'acme', sub: userId, role: 'authenticated', aal: 'aal1' });
    const input = lastCall('/claims');
    expect(input).toMatchObject({ user_id: userId, authentication_method: 'password', claims: { sub: userId, email, role: 'authenticated' } });
    expect(input.claims.exp - input.claims.iat).toBe(server.deps.config.jwt.exp);

    const refreshed = await auth.refreshSession({ refresh_token: signIn.data.session!.refresh_token });
    expect(claimsOf(refreshed.data.session!.access_token).tenant_id).toBe('acme');
    expect(lastCall('/claims').authentication_method).toBe('token_refresh');

    const anonymous = await client().signInAnonymously();
    expect(claimsOf(anonymous.data.session!.access_token)).toMatchObject({ tenant_id: 'acme', is_anonymous: true });
    expect(lastCall('/claims').authentication_method).toBe('anonymous');
    // No mail went over SMTP: the send email hook had it.
    expect(server.smtp.messages).toHaveLength(0);
  });

  it('issues no token when the hook drops a required claim, answers an error, times out or answers garbage', async () => {
    const { email, userId } = await confirmedUser();
    const sessionsBefore = await countRows('auth.sessions', 'user_id', userId);
    const signIn = () => call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: PASSWORD } });

    hooks.on('/claims', ({ payload }) => {
      const { role: _role, ...claims } = payload.claims as Record<string, unknown>;
      return { body: { claims } };
    });
    const missing = await signIn();
    expect(missing.status).toBe(500);
    expect(missing.body).toMatchObject({ error_code: 'unexpected_failure', msg: 'output claims do not conform to the expected schema' });

    hooks.on('/claims', () => ({ body: { error: { http_code: 403, message: 'Tenant suspended' } } }));
    const refused = await signIn();
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toBe('Tenant suspended');

    const callsBefore = hooks.callsTo('/claims').length;
    hooks.on('/claims', () => ({ hang: true }));
    const timedOut = await signIn();
    expect(timedOut.status).toBe(422);
    expect(timedOut.body.error_code).toBe('hook_timeout_after_retry');
    expect(hooks.callsTo('/claims').length - callsBefore).toBe(3);

    hooks.on('/claims', () => ({ raw: 'claims: none', contentType: 'text/plain' }));
    const garbage = await signIn();
    expect(garbage.status).toBe(500);
    expect(garbage.body.error_code).toBe('hook_payload_invalid_content_type');

    // No session was recorded for any of them.
    expect(await countRows('auth.sessions', 'user_id', userId)).toBe(sessionsBefore);
  });

  it('tries again after a 503 with Retry-After, the same webhook-id each time, and never after a 500', async () => {
    const { email } = await confirmedUser();
    let busy = 1;
    hooks.on('/claims', ({ payload }) =>
      busy-- > 0 ? { status: 503, headers: { 'retry-after': '1' } } : { body: { claims: payload.claims } });
    const before = hooks.callsTo('/claims').length;
    const signIn = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: PASSWORD } });
    expect(signIn.status).toBe(200);
    const attempts = hooks.callsTo('/claims').slice(before);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.headers['webhook-id']).toBe(attempts[1]!.headers['webhook-id']);

    hooks.on('/claims', () => ({ status: 500 }));
    const failing = hooks.callsTo('/claims').length;
    expect((await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: PASSWORD } })).status).toBe(500);
    expect(hooks.callsTo('/claims').length - failing).toBe(1);
  });
});

describe('password and MFA verification attempts', () => {
  it('a rejecting password hook blocks the sign-in, right password or wrong, and may end every session', async () => {
    const { auth, email, userId } = await confirmedUser();
    hooks.on('/password', ({ payload }) => ({ body: { decision: 'reject', message: `locked (valid: ${String(payload.valid)})`, should_logout_user: true } }));
    const right = await auth.signInWithPassword({ email, password: PASSWORD });
    expect(right.error).toMatchObject({ status: 400, code: 'invalid_credentials', message: 'locked (valid: true)' });
    expect(lastCall('/password')).toEqual({ user_id: userId, valid: true });
    const wrong = await auth.signInWithPassword({ email, password: 'not-the-password' });
    expect(wrong.error?.message).toBe('locked (valid: false)');
    expect(await countRows('auth.sessions', 'user_id', userId)).toBe(0);

    hooks.on('/password', () => ({ body: { decision: 'continue' } }));
    expect((await auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
  });

  it('a rejecting MFA hook answers 403 mfa_verification_rejected and ends the sessions', async () => {
    const { auth, userId } = await confirmedUser();
    const enrolled = await auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const factor = enrolled.data!;
    const secret = factor.type === 'totp' ? factor.totp.secret : '';
    // Allowed first: the session reaches AAL2, and the claims hook hears of it as a totp token.
    const first = await auth.mfa.challengeAndVerify({ factorId: factor.id, code: authenticatorCode(secret, server.clock.now()) });
    expect(first.error).toBeNull();
    expect(lastCall('/claims')).toMatchObject({ authentication_method: 'totp', claims: { aal: 'aal2' } });

    server.clock.advance(60); // a fresh TOTP step: each code counts once
    const challenge = await auth.mfa.challenge({ factorId: factor.id });
    hooks.on('/mfa', () => ({ body: { decision: 'reject', message: 'Too many attempts' } }));
    const code = authenticatorCode(secret, server.clock.now());
    const verify = await auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code });
    expect(verify.error).toMatchObject({ status: 403, code: 'mfa_verification_rejected', message: 'Too many attempts' });
    expect(lastCall('/mfa')).toEqual({ factor_id: factor.id, factor_type: 'totp', user_id: userId, valid: true });
    expect(await countRows('auth.sessions', 'user_id', userId)).toBe(0);
  });
});

describe('before user created', () => {
  it('rejects a sign-up by e-mail, by OAuth and by ID token, and nothing of the user is left', async () => {
    const email = uniqueEmail('someone').replace(/@.*/, '@blocked.example');
    const bySignUp = await client().signUp({ email, password: PASSWORD });
    expect(bySignUp.error).toMatchObject({ status: 403, message: 'This domain may not sign up' });
    expect(lastCall('/new-user')).toMatchObject({ metadata: { name: 'before-user-created', ip_address: '127.0.0.1' }, user: { email, aud: 'authenticated' } });

    const byOtp = await client().signInWithOtp({ email });
    expect(byOtp.error?.message).toBe('This domain may not sign up');

    const person = { sub: 'blocked-1', email, email_verified: true };
    const byOAuth = await signInThroughProvider(server.url, { provider: 'keycloak', test_claims: JSON.stringify(person) });
    expect(byOAuth.fragment.error_description ?? byOAuth.query.error_description).toBe('This domain may not sign up');

    const { idToken } = await oidc.issueTokens('keycloak-client', { ...person, sub: 'blocked-2' });
    const byIdToken = await call(server.url, 'POST', '/token?grant_type=id_token', { body: { provider: 'keycloak', id_token: idToken } });
    expect(byIdToken.status).toBe(403);

    expect(await countRows('auth.users', 'email', email)).toBe(0);
    const allowed = await client().signInAnonymously();
    expect(allowed.error).toBeNull();
    expect(lastCall('/new-user').user).toMatchObject({ is_anonymous: true });
  });
});

describe('send SMS and send email', () => {
  it('a phone sign-up gets its code through the SMS hook, and the code signs in', async () => {
    const phone = `1555${String(Date.now()).slice(-7)}`;
    const auth = client();
    const signUp = await auth.signUp({ phone, password: PASSWORD });
    expect(signUp.error).toBeNull();
    const sms = lastCall('/sms');
    expect(sms.user).toMatchObject({ phone, id: signUp.data.user!.id });
    expect(sms.sms.otp).toMatch(/^\d{6}$/);
    const verified = await auth.verifyOtp({ phone, token: sms.sms.otp, type: 'sms' });
    expect(verified.error).toBeNull();
    expect(claimsOf(verified.data.session!.access_token).tenant_id).toBe('acme');
  });

  it('a failing e-mail hook fails the sign-up and leaves no user; a secure e-mail change is one call with both tokens', async () => {
    hooks.on('/email', () => ({ status: 500 }));
    const email = uniqueEmail('nomail');
    const failed = await client().signUp({ email, password: PASSWORD });
    expect(failed.error?.status).toBe(500);
    expect(await countRows('auth.users', 'email', email)).toBe(0);
    defaults();

    const { auth } = await confirmedUser();
    const newEmail = uniqueEmail('changed');
    expect((await auth.updateUser({ email: newEmail })).error).toBeNull();
    const change = lastCall('/email').email_data;
    expect(change).toMatchObject({ email_action_type: 'email_change', token: expect.stringMatching(/^\d{6}$/), token_new: expect.stringMatching(/^\d{6}$/) });
    expect(change.token_hash).not.toBe(change.token_hash_new);
    const confirmed = await auth.verifyOtp({ email: newEmail, token: change.token, type: 'email_change' });
    expect(confirmed.error).toBeNull();
    expect(server.smtp.messages).toHaveLength(0);
  });
});
