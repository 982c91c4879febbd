// One identity for both services (issue 20): the real auth server (its built dist/main.js, as deployed) and
// the DNS API on one PostgreSQL. An auth-server user signs up, is linked (by an administrator, or by a
// verified email) and manages a zone with the bearer token, then with a cookie session exchanged for it; a
// token signed by another key, an expired one, one whose auth session was logged out and one of an unlinked
// user are all 401. Addresses are confirmed by the mailed code (the auth server mails through an SMTP catcher):
// auto-link trusts only that, never an auth server that confirms addresses by itself (issue 27).
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, importJWK, type JWK } from 'jose';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { CookieClient } from '../helpers/client';
import { APP_DIR, startTestServer, type TestServer } from '../helpers/server';
// The auth server's own test helpers: its SMTP catcher and an RFC 6238 code generator.
import { startSmtpCatcher, type SmtpCatcher } from '../../../auth-server/test/helpers/smtp-catcher';
import { authenticatorCode } from '../../../auth-server/test/helpers/totp';

const AUTH_MAIN = path.join(APP_DIR, '..', 'auth-server', 'dist', 'main.js');
let authDb: TestDatabase;
let auth: ChildProcess;
let authUrl: string;
let authCwd: string;
let dns: TestServer;
let smtp: SmtpCatcher;
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingJwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: 'test-es256', alg: 'ES256', use: 'sig', key_ops: ['sign', 'verify'] };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the auth server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the auth server did not become healthy');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The built auth server as a process on `db`, mailing through the catcher (or confirming by itself). */
async function startAuthServer(db: TestDatabase, cwd: string, extra: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [AUTH_MAIN], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH, NODE_ENV: 'test', PORT: String(port), AUTH_DATABASE_URL: db.url, AUTH_SITE_URL: 'http://localhost:3000',
      AUTH_API_EXTERNAL_URL: url, AUTH_JWT_KEYS: JSON.stringify([signingJwk]), AUTH_BCRYPT_COST: '4', AUTH_LOG_LEVEL: 'error',
      AUTH_SMTP_HOST: '127.0.0.1', AUTH_SMTP_PORT: String(smtp.port), AUTH_SMTP_ADMIN_EMAIL: 'auth@example.com', AUTH_SMTP_MAX_FREQUENCY: '1',
      AUTH_RATE_LIMIT_EMAIL_SENT: '1000', AUTH_RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '1000', AUTH_RATE_LIMIT_OTP: '1000', AUTH_RATE_LIMIT_VERIFY: '1000',
      AUTH_RATE_LIMIT_TOKEN_REFRESH: '10000', AUTH_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '1000',
      ...extra,
    },
  });
  await waitForHealth(url, child);
  return { url, child };
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  authDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  authCwd = mkdtempSync(path.join(tmpdir(), 'kz-shared-identity-'));
  ({ url: authUrl, child: auth } = await startAuthServer(authDb, authCwd));
  dns = await startTestServer({ auth: { enabled: true, url: authUrl, jwksUrl: `${authUrl}/.well-known/jwks.json`, autoLinkByVerifiedEmail: true } });
}, 120_000);

afterAll(async () => {
  await dns?.close();
  await stopProcess(auth);
  await authDb?.destroy();
  await smtp?.close();
  if (authCwd) rmSync(authCwd, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });

/** Signs up on the auth server and confirms the address with the mailed code, then signs in with the password. */
async function authUser(email: string, password = 'auth-password-1', base = authUrl) {
  const signup = await post(`${base}/signup`, { email, password });
  expect(signup.status).toBe(200);
  const mail = await smtp.nextMessageTo(email);
  const code = /code: (\d{6,10})/.exec(mail.html)?.[1];
  expect((await post(`${base}/verify`, { type: 'signup', email, token: code })).status).toBe(200);
  return signIn(email, password, base);
}

async function signIn(email: string, password: string, base = authUrl) {
  const session = (await (await post(`${base}/token?grant_type=password`, { email, password })).json()) as {
    access_token: string;
    user: { id: string; email_confirmed_at?: string };
  };
  expect(session.user.email_confirmed_at).toBeDefined();
  return { token: session.access_token, sub: session.user.id, email, password };
}
const bearer = (token: string) => new CookieClient(dns.url).request('GET', '/zone', { headers: { authorization: `Bearer ${token}` } });
const expectRefused = async (token: string) => {
  const res = await bearer(token);
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid authentication' });
};

it('an administrator links an auth-server user, who manages a zone with the bearer token and then with the exchanged cookie', async () => {
  await dns.seedUser({ group: 'Shared', username: 'admin', isAdmin: true });
  const { userId } = await dns.seedUser({ group: 'Shared', username: 'carol', email: 'carol@dns.example' });
  const admin = await dns.login('admin@Shared');
  const person = await authUser(`carol-${randomUUID().slice(0, 8)}@auth.example`);
  await expectRefused(person.token); // not linked yet

  const linked = await admin.post(`/user/${userId}/identities`, { sub: person.sub });
  expect(linked.status).toBe(201);
  expect(linked.body.identity).toMatchObject({ sub: person.sub, user_id: userId, linked_by: 'admin' });
  expect((await admin.post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(409);

  const headers = { authorization: `Bearer ${person.token}` };
  const api = new CookieClient(dns.url);
  const me = await api.request('GET', '/session', { headers });
  expect(me.status).toBe(200);
  expect(me.body.user).toMatchObject({ id: userId, username: 'carol' });
  const zone = await api.request('POST', '/zone', { headers, json: { zone: 'shared-identity.example.', mailaddr: 'hostmaster@shared-identity.example' } });
  expect(zone.status).toBe(201);
  const record = await api.request('POST', '/zone_record', { headers, json: { zid: zone.body.zone.id, owner: 'www', type: 'A', ttl: 3600, address: '192.0.2.80' } });
  expect(record.status).toBe(201);

  const browser = new CookieClient(dns.url);
  const exchanged = await browser.post('/session', { access_token: person.token });
  expect(exchanged.status).toBe(200);
  expect(exchanged.body.user.id).toBe(userId);
  const zones = await browser.get('/zone');
  expect(zones.status).toBe(200);
  expect(JSON.stringify(zones.body)).toContain('shared-identity.example.');
  expect((await new CookieClient(dns.url).post('/session', { access_token: 'not-a-token' })).status).toBe(401);
});

it('links by verified email on first use, when exactly one DNS user has the address', async () => {
  const email = `dave-${randomUUID().slice(0, 8)}@both.example`;
  const { userId } = await dns.seedUser({ group: 'Auto', username: 'dave', email });
  const person = await authUser(email);
  const res = await bearer(person.token);
  expect(res.status).toBe(200);
  const admin = await dns.login('admin@Shared');
  expect((await admin.get(`/user/${userId}/identities`)).status).toBe(403); // Auto is outside Shared
  const self = await new CookieClient(dns.url).request('GET', `/user/${userId}/identities`, { headers: { authorization: `Bearer ${person.token}` } });
  expect(self.body.identities).toEqual([expect.objectContaining({ sub: person.sub, linked_by: 'verified_email' })]);
});

it('refuses a token of another key, an expired one, a logged-out one and one of an unlinked user', async () => {
  const email = `erin-${randomUUID().slice(0, 8)}@auth.example`;
  const { userId } = await dns.seedUser({ group: 'Shared', username: `erin-${randomUUID().slice(0, 4)}`, email: `other-${email}` });
  const person = await authUser(email);
  expect((await (await dns.login('admin@Shared')).post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(201);
  const claims = JSON.parse(Buffer.from(person.token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

  const { privateKey: otherKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'test-es256' }).sign(otherKey);
  await expectRefused(foreign);

  const past = Math.floor(Date.now() / 1000) - 7200;
  const expired = await new SignJWT({ ...claims, iat: past, exp: past + 3600 }).setProtectedHeader({ alg: 'ES256', kid: 'test-es256' }).sign(await importJWK(signingJwk, 'ES256'));
  await expectRefused(expired);

  // A second sign-in, logged out on the auth server before its first use here.
  const second = (await (await fetch(`${authUrl}/token?grant_type=password`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: person.password }) })).json()) as { access_token: string };
  expect((await fetch(`${authUrl}/logout?scope=local`, { method: 'POST', headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(204);
  await expectRefused(second.access_token);
  expect((await bearer(person.token)).status).toBe(200); // the other session is still live

  const stranger = await authUser(`stranger-${randomUUID().slice(0, 8)}@auth.example`);
  await expectRefused(stranger.token);
  expect((await new CookieClient(dns.url).post('/session', { access_token: stranger.token })).status).toBe(401);
});

describe('auto-link needs a proof of the mailbox (issue 27)', () => {
  const adminToken = async (base: string) => {
    return new SignJWT({ role: 'service_role', sub: randomUUID() }).setProtectedHeader({ alg: 'ES256', kid: 'test-es256' })
      .setIssuedAt().setExpirationTime('10m').sign(await importJWK(signingJwk, 'ES256')).then((t) => ({ base, t }));
  };

  it('an address an auth-server admin marked confirmed links nobody', async () => {
    const email = `frank-${randomUUID().slice(0, 8)}@both.example`;
    await dns.seedUser({ group: 'AdminMarked', username: 'frank', email });
    const { t } = await adminToken(authUrl);
    const created = await post(`${authUrl}/admin/users`, { email, password: 'auth-password-1', email_confirm: true }, { authorization: `Bearer ${t}` });
    expect(created.status).toBe(200);
    const person = await signIn(email, 'auth-password-1');
    await expectRefused(person.token);
  });

  it('an auth server that confirms addresses by itself links nobody, even by a mailed-looking address', async () => {
    const otherDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
    const cwd = mkdtempSync(path.join(tmpdir(), 'kz-autoconfirm-'));
    const other = await startAuthServer(otherDb, cwd, { AUTH_MAILER_AUTOCONFIRM: 'true' });
    const dnsOnOther = await startTestServer({ database: dns.database, auth: { enabled: true, url: other.url, jwksUrl: `${other.url}/.well-known/jwks.json`, autoLinkByVerifiedEmail: true } });
    try {
      const email = `grace-${randomUUID().slice(0, 8)}@both.example`;
      await dns.seedUser({ group: 'Autoconfirmed', username: 'grace', email, isAdmin: true });
      // A stranger signs up there with the DNS admin's address: confirmed at once, no mail.
      expect((await post(`${other.url}/signup`, { email, password: 'stranger-password' })).status).toBe(200);
      const stranger = await signIn(email, 'stranger-password', other.url);
      const res = await new CookieClient(dnsOnOther.url).request('GET', '/zone', { headers: { authorization: `Bearer ${stranger.token}` } });
      expect(res.status).toBe(401);
      expect(await dnsOnOther.deps.authTokens!.confirmsByItself()).toBe(true);
    } finally {
      await dnsOnOther.close();
      await stopProcess(other.child);
      await otherDb.destroy();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a link to a deleted DNS user does not block the new user who now has the address', async () => {
    const email = `heidi-${randomUUID().slice(0, 8)}@both.example`;
    await dns.seedUser({ group: 'Relinked', username: 'boss', isAdmin: true });
    const first = await dns.seedUser({ group: 'Relinked', username: 'heidi', email });
    const person = await authUser(email);
    expect((await bearer(person.token)).status).toBe(200);
    const admin = await dns.login('boss@Relinked');
    const second = await admin.post('/user', { gid: first.groupId, username: 'heidi2', email, password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'H', last_name: 'Two' });
    expect(second.status).toBe(201);
    expect((await admin.delete(`/user/${first.userId}`)).status).toBe(200);
    const me = await new CookieClient(dns.url).request('GET', '/session', { headers: { authorization: `Bearer ${person.token}` } });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(second.body.user.id);
  });
});

it('a password-only (aal1) token of a user with a verified MFA factor is refused; the aal2 token is accepted (issue 27)', async () => {
  const email = `ivan-${randomUUID().slice(0, 8)}@both.example`;
  await dns.seedUser({ group: 'Factors', username: 'ivan', email });
  const person = await authUser(email);
  const auth = { authorization: `Bearer ${person.token}` };
  const factor = (await (await post(`${authUrl}/factors`, { factor_type: 'totp' }, auth)).json()) as { id: string; totp: { secret: string } };
  const challenge = (await (await post(`${authUrl}/factors/${factor.id}/challenge`, {}, auth)).json()) as { id: string };
  const verified = await post(`${authUrl}/factors/${factor.id}/verify`, { challenge_id: challenge.id, code: authenticatorCode(factor.totp.secret, new Date()) }, auth);
  expect(verified.status).toBe(200);
  const aal2 = ((await verified.json()) as { access_token: string }).access_token;
  expect((await bearer(aal2)).status).toBe(200);
  const aal1 = await signIn(email, person.password);
  await expectRefused(aal1.token);
});

it('a cookie exchanged for a token ends with the auth session: after a sign-out there, within session_check_seconds (issue 27)', async () => {
  const email = `judy-${randomUUID().slice(0, 8)}@both.example`;
  await dns.seedUser({ group: 'Cookies', username: 'judy', email });
  const person = await authUser(email);
  const browser = new CookieClient(dns.url);
  expect((await browser.post('/session', { access_token: person.token })).status).toBe(200);
  expect((await browser.get('/zone')).status).toBe(200);
  expect((await post(`${authUrl}/logout?scope=global`, {}, { authorization: `Bearer ${person.token}` })).status).toBe(204);
  dns.clock.advance(61); // past session_check_seconds: the auth session is asked again
  expect((await browser.get('/zone')).status).toBe(401);
  // a password login is not tied to an auth session
  const plain = await dns.login('judy@Cookies');
  expect((await plain.get('/zone')).status).toBe(200);
});
