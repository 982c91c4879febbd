// One identity for both services (issue 20): the real auth server (its built dist/main.js, as deployed) and
// the DNS API on one PostgreSQL. An auth-server user signs up, is linked (by an administrator, or by a
// verified email) and manages a zone with the bearer token, then with a cookie session exchanged for it; a
// token signed by another key, an expired one, one whose auth session was logged out and one of an unlinked
// user are all 401.
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

const AUTH_MAIN = path.join(APP_DIR, '..', 'auth-server', 'dist', 'main.js');
let authDb: TestDatabase;
let auth: ChildProcess;
let authUrl: string;
let authCwd: string;
let dns: TestServer;
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

beforeAll(async () => {
  authDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  authCwd = mkdtempSync(path.join(tmpdir(), 'kz-shared-identity-'));
  const port = await freePort();
  authUrl = `http://127.0.0.1:${port}`;
  auth = spawn(process.execPath, [AUTH_MAIN], {
    cwd: authCwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH, NODE_ENV: 'test', PORT: String(port), AUTH_DATABASE_URL: authDb.url, AUTH_SITE_URL: 'http://localhost:3000',
      AUTH_API_EXTERNAL_URL: authUrl, AUTH_JWT_KEYS: JSON.stringify([signingJwk]), AUTH_MAILER_AUTOCONFIRM: 'true', AUTH_BCRYPT_COST: '4',
      AUTH_LOG_LEVEL: 'error',
    },
  });
  await waitForHealth(authUrl, auth);
  dns = await startTestServer({ auth: { enabled: true, url: authUrl, jwksUrl: `${authUrl}/.well-known/jwks.json`, autoLinkByVerifiedEmail: true } });
}, 120_000);

afterAll(async () => {
  await dns?.close();
  if (auth && auth.exitCode === null) {
    const exited = new Promise((resolve) => auth.once('exit', resolve));
    auth.kill('SIGTERM');
    await exited;
  }
  await authDb?.destroy();
  if (authCwd) rmSync(authCwd, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
async function authUser(email: string, password = 'auth-password-1') {
  const signup = await fetch(`${authUrl}/signup`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
  expect(signup.status).toBe(200);
  const session = (await (await fetch(`${authUrl}/token?grant_type=password`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) })).json()) as {
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
