// POST /admin/generate_link over real HTTP: every type, the response fields, redirect_to and the
// allow-list, nothing mailed, the error cases; each link then verified over POST /verify.
import { call } from '../helpers/http';
import { startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { uniqueEmail } from '../helpers/users';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { URI_ALLOW_LIST: 'https://app.example.com/**' } });
});
afterAll(async () => server?.close());

async function generate(body: Record<string, unknown>, query = '') {
  return call(server.url, 'POST', `/admin/generate_link${query}`, { body, token: await server.adminToken(), newShape: true });
}

async function confirmedUser(email = uniqueEmail('gl')) {
  const res = await call(server.url, 'POST', '/admin/users', {
    body: { email, password: 'password-123', email_confirm: true },
    token: await server.adminToken(),
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; email: string };
}

describe('POST /admin/generate_link', () => {
  it('signup: creates the user, returns user fields and the link parts, mails nothing', async () => {
    const email = uniqueEmail('gl-signup');
    const res = await generate({ type: 'signup', email, password: 'password-123', data: { full_name: 'Link Signup' } });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ email, user_metadata: { full_name: 'Link Signup' }, verification_type: 'signup', redirect_to: 'http://localhost:3000' });
    expect(b.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.identities).toHaveLength(1);
    expect(b.email_otp).toMatch(/^\d{6}$/);
    expect(b.hashed_token).toMatch(/^[0-9a-f]{56}$/);
    const link = new URL(b.action_link);
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:9999/verify');
    expect(link.searchParams.get('token')).toBe(b.hashed_token);
    expect(link.searchParams.get('type')).toBe('signup');
    expect(link.searchParams.get('redirect_to')).toBe('http://localhost:3000');
    expect(server.smtp.pendingFor(email)).toEqual([]);

    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'signup', token_hash: b.hashed_token } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.id).toBe(b.id);
    expect(verified.body.user.email_confirmed_at).toBeTruthy();
    // Signing in with the password given to generate_link works once confirmed.
    const login = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } });
    expect(login.status).toBe(200);
  });

  it('redirect_to: an allowed one is kept (query or body); others fall back to SITE_URL', async () => {
    const user = await confirmedUser();
    const viaQuery = await generate({ type: 'magiclink', email: user.email }, '?redirect_to=https%3A%2F%2Fapp.example.com%2Fwelcome');
    expect(viaQuery.body.redirect_to).toBe('https://app.example.com/welcome');
    expect(new URL(viaQuery.body.action_link).searchParams.get('redirect_to')).toBe('https://app.example.com/welcome');
    const viaBody = await generate({ type: 'magiclink', email: user.email, redirect_to: 'https://app.example.com/x' });
    expect(viaBody.body.redirect_to).toBe('https://app.example.com/x');
    const refused = await generate({ type: 'magiclink', email: user.email, redirect_to: 'https://evil.example.net/' });
    expect(refused.body.redirect_to).toBe('http://localhost:3000');
  });

  it('magiclink and recovery for a user verify with the OTP as well as the hash', async () => {
    const user = await confirmedUser();
    const magic = await generate({ type: 'magiclink', email: user.email });
    expect(magic.body.verification_type).toBe('magiclink');
    const byOtp = await call(server.url, 'POST', '/verify', { body: { type: 'email', email: user.email, token: magic.body.email_otp } });
    expect(byOtp.status).toBe(200);
    expect(byOtp.body.user.id).toBe(user.id);

    const recovery = await generate({ type: 'recovery', email: user.email });
    expect(recovery.status).toBe(200);
    expect(recovery.body.recovery_sent_at).toBeTruthy();
    const byHash = await call(server.url, 'POST', '/verify', { body: { type: 'recovery', token_hash: recovery.body.hashed_token } });
    expect(byHash.status).toBe(200);
    expect(byHash.body.user.id).toBe(user.id);
  });

  it('magiclink for an unknown address becomes a signup', async () => {
    const email = uniqueEmail('gl-magic-new');
    const res = await generate({ type: 'magiclink', email });
    expect(res.status).toBe(200);
    expect(res.body.verification_type).toBe('signup');
    expect(res.body.email).toBe(email);
  });

  it('invite: creates an invited user; the link verifies', async () => {
    const email = uniqueEmail('gl-invite');
    const res = await generate({ type: 'invite', email, data: { team: 'blue' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email, verification_type: 'invite', user_metadata: { team: 'blue' } });
    expect(res.body.invited_at).toBeTruthy();
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'invite', token_hash: res.body.hashed_token } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.email).toBe(email);
  });

  it('email_change_new / email_change_current: pending change, both links needed', async () => {
    const user = await confirmedUser();
    const newEmail = uniqueEmail('gl-new');
    const toNew = await generate({ type: 'email_change_new', email: user.email, new_email: newEmail });
    expect(toNew.status).toBe(200);
    expect(toNew.body).toMatchObject({ email: user.email, new_email: newEmail, verification_type: 'email_change' });
    const toCurrent = await generate({ type: 'email_change_current', email: user.email, new_email: newEmail });
    expect(toCurrent.status).toBe(200);
    expect(toCurrent.body.hashed_token).not.toBe(toNew.body.hashed_token);

    const first = await call(server.url, 'POST', '/verify', { body: { type: 'email_change', token_hash: toNew.body.hashed_token } });
    expect(first.status).toBe(200);
    const second = await call(server.url, 'POST', '/verify', { body: { type: 'email_change', token_hash: toCurrent.body.hashed_token } });
    expect(second.status).toBe(200);
    expect(second.body.user.email).toBe(newEmail);
  });

  it('errors: unknown user, confirmed user, bad type, missing fields, taken new email', async () => {
    const user = await confirmedUser();
    const other = await confirmedUser();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ type: 'recovery', email: uniqueEmail('nobody') }, 404, 'user_not_found'],
      [{ type: 'email_change_new', email: uniqueEmail('nobody'), new_email: uniqueEmail() }, 404, 'user_not_found'],
      [{ type: 'signup', email: user.email, password: 'password-123' }, 422, 'email_exists'],
      [{ type: 'invite', email: user.email }, 422, 'email_exists'],
      [{ type: 'email_change_new', email: user.email, new_email: other.email }, 422, 'email_exists'],
      [{ type: 'email_change_new', email: user.email }, 400, 'validation_failed'],
      [{ type: 'sms', email: user.email }, 400, 'validation_failed'],
      [{ email: user.email }, 400, 'validation_failed'],
      [{ type: 'magiclink' }, 400, 'validation_failed'],
      [{ type: 'magiclink', email: 'not an email' }, 400, 'validation_failed'],
      [{ type: 'signup', email: uniqueEmail(), password: '1' }, 422, 'weak_password'],
    ];
    for (const [body, status, code] of cases) {
      const res = await generate(body);
      expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), status, code]);
    }
  });

  it('is admin only', async () => {
    const res = await call(server.url, 'POST', '/admin/generate_link', { body: { type: 'magiclink', email: uniqueEmail() }, newShape: true });
    expect([res.status, res.body.code]).toEqual([401, 'no_authorization']);
  });
});
