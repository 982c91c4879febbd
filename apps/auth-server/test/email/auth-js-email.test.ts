// The public @supabase/auth-js client (2.109.0), unchanged, through every email flow it has a
// method for: mail over real SMTP to the catcher, links followed over real HTTP.
import { AuthClient } from '@supabase/auth-js';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({
    env: { URI_ALLOW_LIST: 'https://app.example.com/**', SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true' },
  });
});
afterAll(async () => server?.close());

/** An in-memory storage adapter: PKCE keeps its code verifier there. */
function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

function client(flowType: 'implicit' | 'pkce' = 'implicit') {
  return new AuthClient({
    url: `${server.url}/auth/v1`,
    storage: memoryStorage(),
    persistSession: true,
    autoRefreshToken: false,
    detectSessionInUrl: false,
    flowType,
  });
}

/** A confirmed user signed in on `auth` via signInWithOtp + verifyOtp (type email). */
async function signedIn(auth: InstanceType<typeof AuthClient>, email = uniqueEmail('authjs-mail')) {
  const sent = await auth.signInWithOtp({ email });
  expect(sent.error).toBeNull();
  const mail = await server.smtp.nextMessageTo(email);
  const verified = await auth.verifyOtp({ email, token: codeOf(mail), type: 'email' });
  expect(verified.error).toBeNull();
  expect(verified.data.session?.access_token).toBeTruthy();
  server.clock.advance(61);
  return { email, session: verified.data.session! };
}

describe('auth-js email flows', () => {
  it('signInWithOtp creates and signs in; shouldCreateUser: false for an unknown email → otp_disabled', async () => {
    const auth = client();
    const { email } = await signedIn(auth);
    const { data } = await auth.getUser();
    expect(data.user?.email).toBe(email);

    const refused = await client().signInWithOtp({ email: uniqueEmail('authjs-none'), options: { shouldCreateUser: false } });
    expect(refused.error?.code).toBe('otp_disabled');
    expect(refused.error?.status).toBe(422);
  });

  it('resetPasswordForEmail → verifyOtp(recovery) → updateUser({password, nonce}) after reauthenticate', async () => {
    const auth = client();
    const { email } = await signedIn(auth);
    const reset = await auth.resetPasswordForEmail(email, { redirectTo: 'https://app.example.com/reset' });
    expect(reset.error).toBeNull();
    const mail = await server.smtp.nextMessageTo(email);
    expect(linkOf(mail)).toContain('redirect_to=https://app.example.com/reset');
    const verified = await auth.verifyOtp({ email, token: codeOf(mail), type: 'recovery' });
    expect(verified.error).toBeNull();

    const needsNonce = await auth.updateUser({ password: 'reset-password-1' });
    expect(needsNonce.error?.code).toBe('reauthentication_needed');
    expect((await auth.reauthenticate()).error).toBeNull();
    const nonceMail = await server.smtp.nextMessageTo(email);
    const nonce = /code: (\d+)/.exec(nonceMail.html)?.[1] ?? '';
    const updated = await auth.updateUser({ password: 'reset-password-1', nonce });
    expect(updated.error).toBeNull();
    const signIn = await client().signInWithPassword({ email, password: 'reset-password-1' });
    expect(signIn.error).toBeNull();
  });

  it('resend (signup) re-sends after SMTP_MAX_FREQUENCY; too early is over_email_send_rate_limit', async () => {
    const auth = client();
    const email = uniqueEmail('authjs-resend');
    const signUp = await auth.signUp({ email, password: 'password-123' });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    await server.smtp.nextMessageTo(email);
    const early = await auth.resend({ type: 'signup', email });
    expect(early.error?.code).toBe('over_email_send_rate_limit');
    expect(early.error?.message).toBe('For security purposes, you can only request this after 60 seconds.');
    server.clock.advance(60);
    expect((await auth.resend({ type: 'signup', email })).error).toBeNull();
    const mail = await server.smtp.nextMessageTo(email);
    const tokenHash = new URL(linkOf(mail)).searchParams.get('token') ?? '';
    const verified = await auth.verifyOtp({ token_hash: tokenHash, type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
  });

  it('updateUser({email}) needs both confirmations; the first returns no session', async () => {
    const auth = client();
    const { email } = await signedIn(auth);
    const newEmail = uniqueEmail('authjs-new');
    const change = await auth.updateUser({ email: newEmail });
    expect(change.error).toBeNull();
    expect(change.data.user?.new_email).toBe(newEmail);
    const toNew = await server.smtp.nextMessageTo(newEmail);
    const toOld = await server.smtp.nextMessageTo(email);
    const first = await client().verifyOtp({ email: newEmail, token: codeOf(toNew), type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    const second = await client().verifyOtp({ email, token: codeOf(toOld), type: 'email_change' });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(newEmail);
  });

  it('a wrong code is an AuthApiError otp_expired (403)', async () => {
    const res = await client().verifyOtp({ email: uniqueEmail('authjs-bad'), token: '123456', type: 'email' });
    expect(res.error?.code).toBe('otp_expired');
    expect(res.error?.status).toBe(403);
  });

  it('PKCE: signInWithOtp stores the verifier; the link gives ?code= which exchangeCodeForSession redeems', async () => {
    const auth = client('pkce');
    const email = uniqueEmail('authjs-pkce');
    const sent = await auth.signInWithOtp({ email, options: { emailRedirectTo: 'https://app.example.com/callback' } });
    expect(sent.error).toBeNull();
    const mail = await server.smtp.nextMessageTo(email);
    expect(linkOf(mail)).toContain('token=pkce_');
    const { location } = await follow(linkOf(mail), server.url);
    expect(location.startsWith('https://app.example.com/callback?code=')).toBe(true);
    const code = new URL(location).searchParams.get('code') ?? '';
    const exchanged = await auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user?.email).toBe(email);
    expect((await auth.getUser()).data.user?.email_confirmed_at).toBeTruthy();

    // PKCE recovery: auth-js stores the verifier as "<verifier>/recovery".
    server.clock.advance(61);
    const reset = await auth.resetPasswordForEmail(email, { redirectTo: 'https://app.example.com/reset' });
    expect(reset.error).toBeNull();
    const recovery = await server.smtp.nextMessageTo(email);
    const back = await follow(linkOf(recovery), server.url);
    const recoveryCode = new URL(back.location).searchParams.get('code') ?? '';
    const session = await auth.exchangeCodeForSession(recoveryCode);
    expect(session.error).toBeNull();
    expect(session.data.session?.access_token).toBeTruthy();
  });
});
