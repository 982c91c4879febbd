// The public @supabase/auth-js client (2.109.0), unchanged, against this server at /auth/v1.
import { AuthClient, type AuthError } from '@supabase/auth-js';
import { startTestServer, type TestServer } from './helpers/server';
import { uniqueEmail } from './helpers/users';

let server: TestServer; // autoconfirm, anonymous sign-ins on
let confirmOff: TestServer;

beforeAll(async () => {
  [server, confirmOff] = await Promise.all([
    startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true' } }),
    startTestServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), confirmOff?.close()]);
});

function client(s: TestServer = server): InstanceType<typeof AuthClient> {
  return new AuthClient({ url: `${s.url}/auth/v1`, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
}

function codeOf(error: AuthError | null): string | undefined {
  return error?.code;
}

describe('auth-js', () => {
  it('signUp → signInWithPassword → getUser → updateUser → refreshSession → signOut', async () => {
    const auth = client();
    const email = uniqueEmail('authjs');
    const signUp = await auth.signUp({ email, password: 'password-123', options: { data: { name: 'Ada' } } });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.access_token).toBeTruthy();
    expect(signUp.data.user).toMatchObject({ email, user_metadata: { name: 'Ada' } });

    const signIn = await auth.signInWithPassword({ email, password: 'password-123' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.token_type).toBe('bearer');
    expect(signIn.data.user?.id).toBe(signUp.data.user?.id);

    const got = await auth.getUser();
    expect(got.error).toBeNull();
    expect(got.data.user?.email).toBe(email);
    expect(got.data.user?.identities?.[0]?.identity_id).toBeTruthy();

    const updated = await auth.updateUser({ data: { name: 'Grace', extra: true } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toEqual({ name: 'Grace', extra: true });

    const before = signIn.data.session?.refresh_token;
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).toBeTruthy();
    expect(refreshed.data.session?.refresh_token).not.toBe(before);
    expect(refreshed.data.session?.user.user_metadata).toEqual({ name: 'Grace', extra: true });

    const session = refreshed.data.session;
    const out = await auth.signOut();
    expect(out.error).toBeNull();
    const { data } = await auth.getSession();
    expect(data.session).toBeNull();

    // The signed-out session's tokens are dead server-side.
    const other = client();
    const stale = await other.getUser(session?.access_token);
    // session_not_found is surfaced as AuthSessionMissingError (reference §2.4).
    expect(stale.error?.name).toBe('AuthSessionMissingError');
    const reuse = await other.refreshSession({ refresh_token: session?.refresh_token ?? '' });
    expect(reuse.error?.status).toBe(400);
    expect(codeOf(reuse.error)).toBe('refresh_token_not_found');
  });

  it('updateUser changes the password', async () => {
    const auth = client();
    const email = uniqueEmail('authjs');
    await auth.signUp({ email, password: 'password-123' });
    const res = await auth.updateUser({ password: 'password-456' });
    expect(res.error).toBeNull();
    const again = await client().signInWithPassword({ email, password: 'password-456' });
    expect(again.error).toBeNull();
  });

  it('signInAnonymously', async () => {
    const res = await client().signInAnonymously({ options: { data: { guest: true } } });
    expect(res.error).toBeNull();
    expect(res.data.user).toMatchObject({ is_anonymous: true, user_metadata: { guest: true } });
    expect(res.data.session?.access_token).toBeTruthy();
    const disabled = await client(confirmOff).signInAnonymously();
    expect(codeOf(disabled.error)).toBe('anonymous_provider_disabled');
    expect(disabled.error?.status).toBe(422);
    expect(disabled.error?.message).toBe('Anonymous sign-ins are disabled');
  });

  it('signUp without autoconfirm returns a user and no session', async () => {
    const email = uniqueEmail('authjs');
    const res = await client(confirmOff).signUp({ email, password: 'password-123' });
    expect(res.error).toBeNull();
    expect(res.data.session).toBeNull();
    expect(res.data.user?.email).toBe(email);
    const login = await client(confirmOff).signInWithPassword({ email, password: 'password-123' });
    expect(codeOf(login.error)).toBe('email_not_confirmed');
    expect(login.error?.message).toBe('Email not confirmed');
  });

  it('error codes reach the client', async () => {
    const auth = client();
    const email = uniqueEmail('authjs');
    await auth.signUp({ email, password: 'password-123' });

    const dup = await client().signUp({ email, password: 'password-123' });
    expect(codeOf(dup.error)).toBe('user_already_exists');
    expect(dup.error?.message).toBe('User already registered');

    const weak = await client().signUp({ email: uniqueEmail('authjs'), password: '123' });
    expect(weak.error?.name).toBe('AuthWeakPasswordError');
    expect(codeOf(weak.error)).toBe('weak_password');
    expect((weak.error as unknown as { reasons: string[] }).reasons).toEqual(['length']);

    const bad = await client().signInWithPassword({ email, password: 'wrong-password' });
    expect(codeOf(bad.error)).toBe('invalid_credentials');
    expect(bad.error?.message).toBe('Invalid login credentials');
    expect(bad.error?.status).toBe(400);

    const same = await auth.updateUser({ password: 'password-123' });
    expect(codeOf(same.error)).toBe('same_password');

    const badRefresh = await client().refreshSession({ refresh_token: 'abcdefghijkl' });
    expect(codeOf(badRefresh.error)).toBe('refresh_token_not_found');

    const noUser = await client().getUser('not-a-jwt');
    expect(codeOf(noUser.error)).toBe('bad_jwt');
  });
});
