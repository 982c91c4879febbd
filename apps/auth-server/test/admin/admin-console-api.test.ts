// The admin API the console needs beyond GoTrue's (issue 43): GET /admin/config (the running settings, every secret
// masked), POST /admin/users/:id/logout (sign out everywhere, audited), and GET /admin/audit's filters; and a
// user's own token with an admin role is an admin token whose actions the audit log records under that user.
import { generateKeyPairSync } from 'node:crypto';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { authenticatorCode } from '../helpers/totp';
import { adminCall } from './admin-helpers';

jest.setTimeout(60_000);

const SECRETS = {
  SMTP_PASS: 'smtp-pass-value-1',
  EXTERNAL_GITHUB_SECRET: 'github-secret-value-2',
  SECURITY_CAPTCHA_SECRET: 'captcha-secret-value-3',
  SMS_TWILIO_AUTH_TOKEN: 'twilio-token-value-4',
  SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: 'encryption-key-value-5-at-least-32-chars',
};
const DB_PASSWORD = 'db-password-value-6';

let server: TestServer;
/** No captcha, so users sign up and in without one. */
let plain: TestServer;

beforeAll(async () => {
  const samlKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;
  server = await startTestServer({
    env: {
      ...SECRETS,
      SMTP_HOST: 'smtp.example.com', SMTP_PORT: '587', SMTP_ADMIN_EMAIL: 'auth@example.com', SMTP_USER: 'mailer', EXTERNAL_GITHUB_ENABLED: 'true', EXTERNAL_GITHUB_CLIENT_ID: 'gh-client',
      EXTERNAL_GITHUB_REDIRECT_URI: 'http://localhost:9999/callback', SECURITY_CAPTCHA_ENABLED: 'true', SECURITY_CAPTCHA_PROVIDER: 'hcaptcha',
      SMS_PROVIDER: 'twilio', SMS_TWILIO_ACCOUNT_SID: 'AC123', SMS_TWILIO_MESSAGE_SERVICE_SID: 'MG123',
      SAML_ENABLED: 'true', SAML_PRIVATE_KEY: samlKey,
      MAILER_AUTOCONFIRM: 'true',
    },
    configure: (deps) => ({ ...deps, config: { ...deps.config, db: { ...deps.config.db, url: deps.config.db.url.replace('postgres://postgres@', `postgres://postgres:${DB_PASSWORD}@`) } } }),
  });
  plain = await startTestServer({ env: { JWT_ADMIN_ROLES: 'service_role,console_admin', MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await Promise.all([server?.close(), plain?.close()]);
});

describe('GET /admin/config', () => {
  it('shows the running settings with every secret masked', async () => {
    const res = await adminCall(server, 'GET', '/admin/config');
    expect(res.status).toBe(200);
    for (const value of [...Object.values(SECRETS), DB_PASSWORD, 'BEGIN RSA', 'BEGIN PRIVATE', 'test-secret-at-least-32']) expect(res.text).not.toContain(value);
    expect(res.body.siteUrl).toBe('http://localhost:3000');
    expect(res.body.smtp).toMatchObject({ host: 'smtp.example.com', pass: '********' });
    expect(res.body.jwt.secret).toBe('********');
    expect(res.body.saml.privateKeyPem).toBe('********');
    expect(res.body.db.url).toContain(':********@');
    expect(res.body.console).toEqual({ enabled: true, requireAal2: true });
    expect(typeof res.body.rateLimit.tokenRefresh).toBe('number');
  });

  it('is for admins only', async () => {
    const user = await call(plain.url, 'POST', '/signup', { body: { email: 'not-admin@config.test', password: 'password-123' } });
    expect((await call(plain.url, 'GET', '/admin/config', { token: user.body.access_token })).status).toBe(403);
    expect((await call(plain.url, 'GET', '/admin/config')).status).toBe(401);
  });
});

describe('an admin user, their sign-out-everywhere and the audit filters', () => {
  it('signs a user out everywhere under the admin user\'s own id, and the audit log finds it by user and by actor', async () => {
    const admin = await adminCall(plain, 'POST', '/admin/users', { body: { email: 'boss@config.test', password: 'password-123', email_confirm: true, role: 'console_admin' } });
    const adminSession = (await call(plain.url, 'POST', '/token?grant_type=password', { body: { email: 'boss@config.test', password: 'password-123' } })).body;
    const member = (await call(plain.url, 'POST', '/signup', { body: { email: 'member@config.test', password: 'password-123' } })).body;
    const memberId = member.user.id;
    expect((await call(plain.url, 'GET', '/user', { token: member.access_token })).status).toBe(200);

    // The admin's password alone is not the admin API (AUTH_CONSOLE_REQUIRE_AAL2, on by default): their second
    // factor first. A service key (no session) is not concerned.
    const atAal1 = await call(plain.url, 'POST', `/admin/users/${memberId}/logout`, { token: adminSession.access_token });
    expect([atAal1.status, atAal1.body.error_code]).toEqual([403, 'insufficient_aal']);
    const factor = (await call(plain.url, 'POST', '/factors', { token: adminSession.access_token, body: { factor_type: 'totp' } })).body;
    const challenge = (await call(plain.url, 'POST', `/factors/${factor.id}/challenge`, { token: adminSession.access_token })).body.id;
    const stepped = await call(plain.url, 'POST', `/factors/${factor.id}/verify`, {
      token: adminSession.access_token, body: { challenge_id: challenge, code: authenticatorCode(factor.totp.secret, plain.clock.now()) },
    });
    expect(stepped.status).toBe(200);
    const out = await call(plain.url, 'POST', `/admin/users/${memberId}/logout`, { token: stepped.body.access_token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ sessions_ended: 1 });
    // The access token already issued stops working at once, and so does the refresh token.
    expect((await call(plain.url, 'GET', '/user', { token: member.access_token })).body.error_code).toBe('session_not_found');
    expect((await call(plain.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: member.refresh_token } })).status).toBe(400);

    const byUser = await adminCall(plain, 'GET', `/admin/audit?user_id=${memberId}`);
    expect(byUser.status).toBe(200);
    const actions = (byUser.body as Array<{ payload: { action: string; actor_id: string } }>).map((e) => e.payload.action);
    expect(actions).toContain('logout');
    expect(actions).toContain('user_signedup');
    const byActor = await adminCall(plain, 'GET', `/admin/audit?actor_id=${admin.body.id}&action=logout`);
    expect(byActor.body).toHaveLength(1);
    expect(byActor.body[0].payload).toMatchObject({ actor_id: admin.body.id, actor_username: 'boss@config.test', traits: { user_id: memberId, sessions_ended: 1 } });
    expect(byActor.headers.get('x-total-count')).toBe('1');

    expect((await adminCall(plain, 'POST', '/admin/users/00000000-0000-0000-0000-000000000000/logout')).status).toBe(404);
    expect((await adminCall(plain, 'POST', '/admin/users/nope/logout')).status).toBe(404);
    for (const query of ['user_id=nope', 'action=DROP%20TABLE', `actor_id=${'x'.repeat(300)}`]) {
      expect((await adminCall(plain, 'GET', `/admin/audit?${query}`)).status).toBe(400);
    }
  });
});
