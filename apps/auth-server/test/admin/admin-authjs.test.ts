// The public @supabase/auth-js admin client (GoTrueAdminApi 2.109.0), unchanged, against the
// server over real HTTP on PostgreSQL: every admin method it has, and the effect of bans and
// deletes seen through the ordinary client.
import { AuthClient, GoTrueAdminApi } from '@supabase/auth-js';
import { startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { uniqueEmail } from '../helpers/users';

let server: EmailTestServer;
let admin: GoTrueAdminApi;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { URI_ALLOW_LIST: 'https://app.example.com/**' } });
  admin = new GoTrueAdminApi({ url: `${server.url}/auth/v1`, headers: { Authorization: `Bearer ${await server.adminToken()}` } });
});
afterAll(async () => server?.close());

function client() {
  return new AuthClient({ url: `${server.url}/auth/v1`, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
}

/** listUsers' data with its paging fields (the error branch of the union has none). */
async function listPage(params?: { page?: number; perPage?: number }) {
  const res = await admin.listUsers(params);
  expect(res.error).toBeNull();
  return res.data as { users: unknown[]; aud: string; total: number; nextPage: number | null; lastPage: number };
}

async function createConfirmed(email = uniqueEmail('authjs-admin'), password = 'password-123') {
  const { data, error } = await admin.createUser({ email, password, email_confirm: true, user_metadata: { full_name: 'Auth Js' } });
  expect(error).toBeNull();
  return { user: data.user!, email, password };
}

describe('GoTrueAdminApi', () => {
  it('createUser → getUserById', async () => {
    const { user, email } = await createConfirmed();
    expect(user.email).toBe(email);
    expect(user.user_metadata).toEqual({ full_name: 'Auth Js' });
    expect(user.app_metadata).toEqual({ provider: 'email', providers: ['email'] });
    const fetched = await admin.getUserById(user.id);
    expect(fetched.error).toBeNull();
    expect(fetched.data.user?.id).toBe(user.id);

    const duplicate = await admin.createUser({ email });
    expect(duplicate.error?.code).toBe('email_exists');
    expect(duplicate.error?.status).toBe(422);
    const missing = await admin.getUserById('6c0d2c8e-3f0e-4b8e-9a1f-2b3c4d5e6f70');
    expect(missing.error?.code).toBe('user_not_found');
    expect(missing.error?.status).toBe(404);
  });

  it('listUsers reads total, nextPage and lastPage from the headers', async () => {
    for (let i = 0; i < 4; i += 1) await createConfirmed();
    const { total } = await listPage({ page: 1, perPage: 1 });
    expect(total).toBeGreaterThanOrEqual(4);

    const first = await listPage({ page: 1, perPage: 2 });
    expect(first.users).toHaveLength(2);
    expect(first).toMatchObject({ aud: 'authenticated', total, nextPage: 2, lastPage: Math.ceil(total / 2) });

    const last = await listPage({ page: Math.ceil(total / 2), perPage: 2 });
    expect(last.nextPage).toBeNull();
    expect(last.lastPage).toBe(Math.ceil(total / 2));

    const all = await listPage();
    expect(all.users).toHaveLength(total);
    expect(all.lastPage).toBe(1);
  });

  it('updateUserById: ban refuses sign-in, unban allows it again', async () => {
    const { user, email, password } = await createConfirmed();
    const banned = await admin.updateUserById(user.id, { ban_duration: '876000h' });
    expect(banned.error).toBeNull();
    expect(banned.data.user?.banned_until).toBeTruthy();
    const refused = await client().signInWithPassword({ email, password });
    expect(refused.error?.code).toBe('user_banned');

    const unbanned = await admin.updateUserById(user.id, { ban_duration: 'none', user_metadata: { plan: 'pro' } });
    expect(unbanned.error).toBeNull();
    expect(unbanned.data.user?.banned_until).toBeUndefined();
    expect(unbanned.data.user?.user_metadata).toEqual({ full_name: 'Auth Js', plan: 'pro' });
    const allowed = await client().signInWithPassword({ email, password });
    expect(allowed.error).toBeNull();
    expect(allowed.data.user?.id).toBe(user.id);

    const bad = await admin.updateUserById(user.id, { ban_duration: 'a while' });
    expect(bad.error?.code).toBe('validation_failed');
    expect(bad.error?.message).toContain('"a while"');
  });

  it('deleteUser: soft keeps an obfuscated row, hard removes it', async () => {
    const soft = await createConfirmed();
    const signedIn = await client().signInWithPassword({ email: soft.email, password: soft.password });
    expect(signedIn.error).toBeNull();
    expect((await admin.deleteUser(soft.user.id, true)).error).toBeNull();
    const kept = await admin.getUserById(soft.user.id);
    expect(kept.data.user?.deleted_at).toBeTruthy();
    expect(kept.data.user?.email).not.toBe(soft.email);
    const after = await client().refreshSession({ refresh_token: signedIn.data.session!.refresh_token });
    expect(after.error).not.toBeNull();

    const hard = await createConfirmed();
    expect((await admin.deleteUser(hard.user.id)).error).toBeNull();
    expect((await admin.getUserById(hard.user.id)).error?.code).toBe('user_not_found');
  });

  it('inviteUserByEmail mails an invitation whose code verifies', async () => {
    const email = uniqueEmail('authjs-invite');
    const invited = await admin.inviteUserByEmail(email, { data: { team: 'red' }, redirectTo: 'https://app.example.com/join' });
    expect(invited.error).toBeNull();
    expect(invited.data.user?.email).toBe(email);
    expect(invited.data.user?.invited_at).toBeTruthy();
    const mail = await server.smtp.nextMessageTo(email);
    const hash = /token=([0-9a-f]{56})/.exec(mail.html)?.[1];
    expect(hash).toBeDefined();
    const verified = await client().verifyOtp({ token_hash: hash!, type: 'invite' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(email);
  });

  describe('generateLink, then verifyOtp', () => {
    it('signup (hash)', async () => {
      const email = uniqueEmail('authjs-gl');
      const { data, error } = await admin.generateLink({ type: 'signup', email, password: 'password-123' });
      expect(error).toBeNull();
      expect(data.user?.email).toBe(email);
      expect(data.properties).toMatchObject({ verification_type: 'signup', redirect_to: 'http://localhost:3000' });
      const verified = await client().verifyOtp({ token_hash: data.properties!.hashed_token, type: 'signup' });
      expect(verified.error).toBeNull();
      expect(verified.data.session?.user.id).toBe(data.user?.id);
    });

    it('magiclink (OTP) with an allowed redirect', async () => {
      const { email } = await createConfirmed();
      const { data, error } = await admin.generateLink({ type: 'magiclink', email, options: { redirectTo: 'https://app.example.com/in' } });
      expect(error).toBeNull();
      expect(data.properties?.redirect_to).toBe('https://app.example.com/in');
      const verified = await client().verifyOtp({ email, token: data.properties!.email_otp, type: 'magiclink' });
      expect(verified.error).toBeNull();
      expect(verified.data.session?.access_token).toBeTruthy();
    });

    it('recovery (OTP)', async () => {
      const { email } = await createConfirmed();
      const { data } = await admin.generateLink({ type: 'recovery', email });
      const verified = await client().verifyOtp({ email, token: data.properties!.email_otp, type: 'recovery' });
      expect(verified.error).toBeNull();
    });

    it('invite (hash)', async () => {
      const email = uniqueEmail('authjs-gl-invite');
      const { data } = await admin.generateLink({ type: 'invite', email });
      expect(data.user?.invited_at).toBeTruthy();
      const verified = await client().verifyOtp({ token_hash: data.properties!.hashed_token, type: 'invite' });
      expect(verified.error).toBeNull();
      expect(verified.data.user?.email).toBe(email);
    });

    it('email_change_current + email_change_new (hash each)', async () => {
      const { email } = await createConfirmed();
      const newEmail = uniqueEmail('authjs-gl-changed');
      const toNew = await admin.generateLink({ type: 'email_change_new', email, newEmail });
      const toCurrent = await admin.generateLink({ type: 'email_change_current', email, newEmail });
      expect(toNew.error).toBeNull();
      expect(toCurrent.error).toBeNull();
      expect(toNew.data.properties?.verification_type).toBe('email_change');
      const first = await client().verifyOtp({ token_hash: toCurrent.data.properties!.hashed_token, type: 'email_change' });
      expect(first.error).toBeNull();
      const second = await client().verifyOtp({ token_hash: toNew.data.properties!.hashed_token, type: 'email_change' });
      expect(second.error).toBeNull();
      expect(second.data.user?.email).toBe(newEmail);
    });

    it('recovery for an unknown address → user_not_found', async () => {
      const { error } = await admin.generateLink({ type: 'recovery', email: uniqueEmail('authjs-nobody') });
      expect(error?.code).toBe('user_not_found');
    });
  });
});
