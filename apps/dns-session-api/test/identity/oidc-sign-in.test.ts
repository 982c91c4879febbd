// Signing in to the DNS API with an OpenID Connect provider (issue 40), the provider being Keyzone's own auth server
// (its built dist/main.js with AUTH_OAUTH_SERVER_ENABLED, as deployed). The browser is fetch with a cookie jar,
// following every redirect by hand: DNS /session/oidc → the provider's /oauth/authorize → its consent API (signed in
// with the user's token, as the consent page does) → back to the DNS callback with the code → the session cookie.
// The provider's public URL (its issuer) is a small forwarding proxy in front of it, which can also stop answering
// or hand the DNS API a token response of the test's choosing (another client's ID token, another sign-in's nonce).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, importJWK, type JWK } from 'jose';
import type { DnsConfig } from '@keyzone/config';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { CookieClient } from '../helpers/client';
import { APP_DIR, startTestServer, type TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const AUTH_MAIN = path.join(APP_DIR, '..', 'auth-server', 'dist', 'main.js');
// The DNS API's external URL as registered with the provider (as behind a reverse proxy); the test sends the
// provider's redirect to the DNS server it started.
const REDIRECT_URI = 'http://localhost/session/oidc/callback';
const HTML = { accept: 'text/html,application/xhtml+xml' };
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingJwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: 'oidc-es256', alg: 'ES256', use: 'sig', key_ops: ['sign', 'verify'] };

/** The provider's public face: forwards to the auth server unless told to fail or to answer the token request itself. */
class ProviderProxy {
  down = false;
  tokenResponse: unknown;
  /** GET /settings as a GoTrue-style server that confirms addresses by itself would answer. */
  autoconfirm = false;
  upstreamPort = 0;
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    if (this.tokenResponse !== undefined && req.url?.startsWith('/oauth/token')) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.tokenResponse));
      return;
    }
    if (this.autoconfirm && req.url === '/settings') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ mailer_autoconfirm: true }));
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: this.upstreamPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

let authDb: TestDatabase;
let auth: ChildProcess;
let authCwd: string;
let issuer: string;
const proxy = new ProviderProxy();
let dns: TestServer;
let dnsByEmail: TestServer;
let client: { id: string; secret: string };
let otherClient: { id: string; secret: string };

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

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const serviceRole = async () =>
  new SignJWT({ role: 'service_role', sub: randomUUID() }).setProtectedHeader({ alg: 'ES256', kid: signingJwk.kid })
    .setIssuedAt().setExpirationTime('10m').sign(await importJWK(signingJwk, 'ES256'));

async function call(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function registerClient(name: string): Promise<{ id: string; secret: string }> {
  const res = await call('POST', `${issuer}/admin/oauth/clients`, { client_name: name, redirect_uris: [REDIRECT_URI] }, await serviceRole());
  expect(res.status).toBe(201);
  return { id: res.body.client_id as string, secret: res.body.client_secret as string };
}

interface Person { sub: string; email: string; token: string }

/** A user of the auth server, created by its administrator, signed in there with the password. */
async function providerUser(input: { email: string; emailConfirmed?: boolean }): Promise<Person> {
  const password = `pw-${randomUUID()}`;
  const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  const confirmed = input.emailConfirmed ?? true;
  // A user whose address is not confirmed cannot sign in with it: such a user signs in with a confirmed phone.
  const created = await call('POST', `${issuer}/admin/users`, {
    email: input.email, password, email_confirm: confirmed, ...(confirmed ? {} : { phone, phone_confirm: true }),
  }, await serviceRole());
  expect(created.status).toBe(200);
  const session = await call('POST', `${issuer}/token?grant_type=password`, confirmed ? { email: input.email, password } : { phone, password });
  expect(session.status).toBe(200);
  return { sub: created.body.id as string, email: input.email, token: session.body.access_token as string };
}

/** What the consent page does once the user is signed in: the redirect back to the client, with code and state. */
async function consent(authorizeUrl: string, person: Person): Promise<URL> {
  const started = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(started.status).toBe(302);
  const id = new URL(started.headers.get('location') ?? '').searchParams.get('authorization_id');
  expect(id).toBeTruthy();
  const details = await call('GET', `${issuer}/oauth/authorizations/${id}`, undefined, person.token);
  expect(details.status).toBe(200);
  let redirect = details.body.redirect_url as string | undefined;
  if (!redirect) {
    const approved = await call('POST', `${issuer}/oauth/authorizations/${id}/consent`, { action: 'approve' }, person.token);
    expect(approved.status).toBe(200);
    redirect = approved.body.redirect_url as string;
  }
  return new URL(redirect);
}

/** GET /session/oidc in `browser`: the provider URL it redirects to. */
async function startSignIn(server: TestServer, browser: CookieClient, redirectTo?: string): Promise<URL> {
  const started = await browser.get(`/session/oidc${redirectTo === undefined ? '' : `?redirect_to=${encodeURIComponent(redirectTo)}`}`, { headers: HTML });
  expect(started.status).toBe(302);
  expect(started.setCookies.find((c) => c.startsWith(`${server.config.session.cookieName}-oidc=`))).toMatch(/HttpOnly; SameSite=Lax; Path=\/session\/oidc/);
  return new URL(started.headers.get('location') ?? '');
}

/** The provider's redirect, delivered to the DNS server under test. */
const callbackPath = (back: URL) => `${back.pathname}${back.search}`;

/** The whole browser round trip; the callback's answer. */
async function signIn(server: TestServer, person: Person, options: { browser?: CookieClient; redirectTo?: string; headers?: Record<string, string> } = {}) {
  const browser = options.browser ?? new CookieClient(server.url);
  const authorize = await startSignIn(server, browser, options.redirectTo);
  const back = await consent(authorize.toString(), person);
  const answer = await browser.get(callbackPath(back), { headers: options.headers ?? HTML });
  return { browser, answer, authorize, back };
}

const oidcSettings = (extra: Partial<NonNullable<DnsConfig['auth']['oidc']>> = {}): Partial<DnsConfig['auth']> => ({
  oidc: {
    issuer, clientId: client.id, clientSecret: client.secret, scopes: ['openid', 'email'], redirectUri: REDIRECT_URI,
    label: 'Sign in with Keyzone', linkByVerifiedEmail: false, discoveryRefreshSeconds: 3600, ...extra,
  },
});

beforeAll(async () => {
  issuer = await proxy.listen();
  proxy.upstreamPort = await freePort();
  authDb = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  authCwd = mkdtempSync(path.join(tmpdir(), 'kz-oidc-sign-in-'));
  auth = spawn(process.execPath, [AUTH_MAIN], {
    cwd: authCwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH, NODE_ENV: 'test', PORT: String(proxy.upstreamPort), AUTH_DATABASE_URL: authDb.url,
      AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: issuer, AUTH_JWT_ISSUER: issuer,
      AUTH_JWT_KEYS: JSON.stringify([signingJwk]), AUTH_BCRYPT_COST: '4', AUTH_LOG_LEVEL: 'error',
      AUTH_OAUTH_SERVER_ENABLED: 'true', AUTH_MAILER_AUTOCONFIRM: 'false', AUTH_EXTERNAL_PHONE_ENABLED: 'true',
      AUTH_SMS_TEST_OTP: '15550000000:123456', // phone sign-in on, nothing ever sent (users here sign in with a password)
    },
  });
  await waitForHealth(`http://127.0.0.1:${proxy.upstreamPort}`, auth);
  client = await registerClient('Keyzone DNS');
  otherClient = await registerClient('Another app');
  dns = await startTestServer({ auth: oidcSettings() });
  dnsByEmail = await startTestServer({ auth: oidcSettings({ linkByVerifiedEmail: true, label: 'Keyzone' }) });
  await dns.seedUser({ group: 'Oidc', username: 'admin', isAdmin: true });
}, 120_000);

afterAll(async () => {
  await dns?.close();
  await dnsByEmail?.close();
  if (auth && auth.exitCode === null) {
    const exited = new Promise((resolve) => auth.once('exit', resolve));
    auth.kill('SIGTERM');
    await exited;
  }
  await proxy.close();
  await authDb?.destroy();
  if (authCwd) rmSync(authCwd, { recursive: true, force: true });
});

afterEach(() => {
  proxy.down = false;
  proxy.tokenResponse = undefined;
  proxy.autoconfirm = false;
});

const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}@oidc.example`;

it('tells the console whether the button is there, and what it says', async () => {
  expect((await dnsByEmail.client().get('/session/oidc/config')).body.oidc).toEqual({ enabled: true, label: 'Keyzone' });
  const plain = await startTestServer();
  try {
    expect((await plain.client().get('/session/oidc/config')).body.oidc).toEqual({ enabled: false });
    expect((await plain.client().get('/session/oidc')).status).toBe(404);
    const browser = await plain.client().get('/session/oidc', { headers: HTML });
    expect([browser.status, browser.headers.get('location')]).toEqual([302, '/?oidc_error=not_configured']);
  } finally {
    await plain.close();
  }
});

it('a linked user signs in: PKCE, state and nonce to the provider, the usual session cookie back, then the console', async () => {
  const { userId } = await dns.seedUser({ group: 'Oidc', username: 'carol', email: 'carol@dns.example' });
  const person = await providerUser({ email: unique('carol') });
  const admin = await dns.login('admin@Oidc');
  expect((await admin.post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(201);

  const { browser, answer, authorize } = await signIn(dns, person, { redirectTo: '/#/zones' });
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
    response_type: 'code', client_id: client.id, redirect_uri: REDIRECT_URI, scope: 'openid email', code_challenge_method: 'S256',
  });
  expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
  expect(authorize.searchParams.get('nonce')).toMatch(/^[\w-]{43}$/);
  expect(answer.status).toBe(302);
  expect(answer.headers.get('location')).toBe('/#/zones');
  expect(answer.setCookies.find((c) => c.startsWith('sid-dnsapi='))).toMatch(/Max-Age=3600; .*HttpOnly; SameSite=Strict; Path=\//);
  expect(answer.setCookies.find((c) => c.startsWith('sid-dnsapi-oidc='))).toMatch(/^sid-dnsapi-oidc=; Max-Age=0/);
  const me = await browser.get('/session');
  expect(me.status).toBe(200);
  expect(me.body.user).toMatchObject({ id: userId, username: 'carol' });
  expect((await browser.get('/zone')).status).toBe(200);

  // Without redirect_to the console's root; a signed-in browser gets a new session id (no fixation).
  const before = browser.jar.get('sid-dnsapi');
  const again = await signIn(dns, person, { browser });
  expect(again.answer.headers.get('location')).toBe('/');
  expect(browser.jar.get('sid-dnsapi')).not.toBe(before);
  expect((await browser.get('/session')).body.user.id).toBe(userId);
});

it('refuses an unlinked subject, even with a verified address, unless link_by_verified_email; then only an exact, unique match', async () => {
  const email = unique('dave');
  const { userId } = await dnsByEmail.seedUser({ group: 'ByEmail', username: 'dave', email });
  await dns.seedUser({ group: 'Oidc', username: 'dave', email });
  const person = await providerUser({ email });

  const refused = await signIn(dns, person);
  expect([refused.answer.status, refused.answer.headers.get('location')]).toEqual([302, '/?oidc_error=not_linked']);
  expect(refused.browser.jar.has('sid-dnsapi')).toBe(false);
  const api = await signIn(dns, person, { headers: { accept: 'application/json' } });
  expect(api.answer.status).toBe(403);
  expect(api.answer.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'No DNS user is linked to you; ask an administrator to link your account' });

  const linked = await signIn(dnsByEmail, person);
  expect(linked.answer.headers.get('location')).toBe('/');
  expect((await linked.browser.get('/session')).body.user.id).toBe(userId);
  const identities = await linked.browser.get(`/user/${userId}/identities`);
  expect(identities.body.identities).toEqual([expect.objectContaining({ sub: person.sub, linked_by: 'verified_email' })]);

  // The address in another case (the provider keeps addresses in lower case): not exactly the DNS user's, no link.
  const upper = unique('Erin');
  await dnsByEmail.seedUser({ group: 'ByEmail', username: 'erin', email: upper });
  const erin = await signIn(dnsByEmail, await providerUser({ email: upper.toLowerCase() }));
  expect(erin.answer.headers.get('location')).toBe('/?oidc_error=not_linked');

  // Two DNS users with the address: ambiguous, no link.
  const shared = unique('shared');
  await dnsByEmail.seedUser({ group: 'ByEmail', username: 'shared-1', email: shared });
  await dnsByEmail.seedUser({ group: 'ByEmail2', username: 'shared-2', email: shared });
  expect((await signIn(dnsByEmail, await providerUser({ email: shared }))).answer.headers.get('location')).toBe('/?oidc_error=not_linked');
});

it('refuses to link by an address the provider has not verified', async () => {
  const email = unique('frank');
  await dnsByEmail.seedUser({ group: 'ByEmail', username: 'frank', email });
  const person = await providerUser({ email, emailConfirmed: false });
  const { answer, browser } = await signIn(dnsByEmail, person);
  expect(answer.headers.get('location')).toBe('/?oidc_error=email_not_verified');
  expect(browser.jar.has('sid-dnsapi')).toBe(false);

  // A verified address from a provider that confirms addresses by itself (its /settings says so) proves nothing.
  proxy.autoconfirm = true;
  const fresh = await startTestServer({ auth: oidcSettings({ linkByVerifiedEmail: true }) });
  try {
    const verified = unique('judy');
    await fresh.seedUser({ group: 'Fresh', username: 'judy', email: verified });
    const judy = await signIn(fresh, await providerUser({ email: verified }));
    expect(judy.answer.headers.get('location')).toBe('/?oidc_error=email_not_verified');
  } finally {
    await fresh.close();
  }
});

it('refuses a state of another sign-in, a callback without the browser\'s cookie, a replayed callback, and a bad redirect_to', async () => {
  const { userId } = await dns.seedUser({ group: 'Oidc', username: 'grace', email: 'grace@dns.example' });
  const person = await providerUser({ email: unique('grace') });
  expect((await (await dns.login('admin@Oidc')).post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(201);

  // The browser started a sign-in; the callback carries another state.
  const browser = new CookieClient(dns.url);
  const back = await consent((await startSignIn(dns, browser)).toString(), person);
  const forged = new URL(back);
  forged.searchParams.set('state', randomBytes(32).toString('base64url'));
  const mismatch = await browser.get(callbackPath(forged), { headers: { accept: 'application/json' } });
  expect([mismatch.status, mismatch.body.message]).toEqual([400, 'This sign-in was not started in this browser, or it expired; start again']);

  // Another browser (no cookie) with a genuine callback URL.
  const stranger = await new CookieClient(dns.url).get(callbackPath(back), { headers: HTML });
  expect(stranger.headers.get('location')).toBe('/?oidc_error=invalid_state');

  // A callback used once, then replayed with the same cookie.
  const first = new CookieClient(dns.url);
  const started = await startSignIn(dns, first);
  const cookie = first.jar.get('sid-dnsapi-oidc') ?? '';
  const code = await consent(started.toString(), person);
  expect((await first.get(callbackPath(code), { headers: HTML })).headers.get('location')).toBe('/');
  const replay = new CookieClient(dns.url);
  replay.jar.set('sid-dnsapi-oidc', cookie);
  const replayed = await replay.get(callbackPath(code), { headers: HTML });
  expect(replayed.headers.get('location')).toBe('/?oidc_error=invalid_state');
  expect(replay.jar.has('sid-dnsapi')).toBe(false);

  // A tampered cookie.
  const tampered = new CookieClient(dns.url);
  tampered.jar.set('sid-dnsapi-oidc', `${cookie.split('.')[0]}.${randomBytes(32).toString('base64url')}`);
  expect((await tampered.get(callbackPath(code), { headers: HTML })).headers.get('location')).toBe('/?oidc_error=invalid_state');

  for (const target of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
    const res = await new CookieClient(dns.url).get(`/session/oidc?redirect_to=${encodeURIComponent(target)}`);
    expect([target, res.status]).toEqual([target, 400]);
  }
  // RFC 9207: the answer names another issuer.
  const mixedUp = new CookieClient(dns.url);
  const mixedUpBack = await consent((await startSignIn(dns, mixedUp)).toString(), person);
  mixedUpBack.searchParams.set('iss', 'https://another-provider.example');
  expect((await mixedUp.get(callbackPath(mixedUpBack), { headers: HTML })).headers.get('location')).toBe('/?oidc_error=provider_error');

  const denied = new CookieClient(dns.url);
  const start = await startSignIn(dns, denied);
  const cancelled = await denied.get(`/session/oidc/callback?error=access_denied&state=${start.searchParams.get('state')}`, { headers: HTML });
  expect(cancelled.headers.get('location')).toBe('/?oidc_error=access_denied');
});

/** A genuine token response of the provider for `who`, for a sign-in with `nonce`, as `as` would get it. */
async function tokenResponseFor(person: Person, as: { id: string; secret: string }, nonce: string): Promise<Record<string, unknown>> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${issuer}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: as.id, redirect_uri: REDIRECT_URI, scope: 'openid email', state: 's', nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  })) url.searchParams.set(k, v);
  const back = await consent(url.toString(), person);
  const res = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${as.id}:${as.secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

it('refuses an ID token for another sign-in (nonce), for another client (audience), or with a foreign access token (at_hash)', async () => {
  const { userId } = await dns.seedUser({ group: 'Oidc', username: 'heidi', email: 'heidi@dns.example' });
  const person = await providerUser({ email: unique('heidi') });
  expect((await (await dns.login('admin@Oidc')).post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(201);

  const attempt = async (tokenResponse: Record<string, unknown>) => {
    const browser = new CookieClient(dns.url);
    const started = await startSignIn(dns, browser);
    proxy.tokenResponse = tokenResponse;
    const res = await browser.get(`/session/oidc/callback?code=any&state=${started.searchParams.get('state')}`, { headers: { accept: 'application/json' } });
    proxy.tokenResponse = undefined;
    expect(browser.jar.has('sid-dnsapi')).toBe(false);
    return res;
  };
  const ownButOtherNonce = await tokenResponseFor(person, client, 'another-sign-ins-nonce');
  const nonce = await attempt(ownButOtherNonce);
  expect([nonce.status, nonce.body.message]).toEqual([401, "The provider's ID token was refused: nonce mismatch"]);

  const otherAudience = await attempt(await tokenResponseFor(person, otherClient, 'n'));
  expect(otherAudience.status).toBe(401);
  expect(otherAudience.body.message).toMatch(/^The provider's ID token was refused: .*aud/);

  // Right client, but the nonce of this very sign-in cannot be known ahead: take it from the provider URL.
  const browser = new CookieClient(dns.url);
  const started = await startSignIn(dns, browser);
  const genuine = await tokenResponseFor(person, client, started.searchParams.get('nonce') ?? '');
  const other = await tokenResponseFor(person, client, 'x');
  proxy.tokenResponse = { ...genuine, access_token: other.access_token };
  const atHash = await browser.get(`/session/oidc/callback?code=any&state=${started.searchParams.get('state')}`, { headers: HTML });
  expect(atHash.headers.get('location')).toBe('/?oidc_error=invalid_id_token');
});

it('a provider that is down: a clean 503 (or the console with oidc_error=unavailable), never a 500', async () => {
  const { userId } = await dns.seedUser({ group: 'Oidc', username: 'ivan', email: 'ivan@dns.example' });
  const person = await providerUser({ email: unique('ivan') });
  expect((await (await dns.login('admin@Oidc')).post(`/user/${userId}/identities`, { sub: person.sub })).status).toBe(201);

  // Down between the redirect and the callback: the code exchange fails.
  const browser = new CookieClient(dns.url);
  const back = await consent((await startSignIn(dns, browser)).toString(), person);
  proxy.down = true;
  const res = await browser.get(callbackPath(back), { headers: { accept: 'application/json' } });
  expect([res.status, res.body.message]).toEqual([503, 'The sign-in provider did not answer; try again']);

  // Down before discovery: a fresh instance cannot start a sign-in.
  const fresh = await startTestServer({ auth: oidcSettings() });
  try {
    const api = await fresh.client().get('/session/oidc');
    expect([api.status, api.body.error]).toEqual([503, 'Service Unavailable']);
    const page = await fresh.client().get('/session/oidc', { headers: HTML });
    expect([page.status, page.headers.get('location')]).toEqual([302, '/?oidc_error=unavailable']);
    // Back up: the same instance signs in.
    proxy.down = false;
    const { userId: freshUser } = await fresh.seedUser({ group: 'Fresh', username: 'ivan', email: 'ivan@dns.example' });
    await fresh.seedUser({ group: 'Fresh', username: 'admin', isAdmin: true });
    expect((await (await fresh.login('admin@Fresh')).post(`/user/${freshUser}/identities`, { sub: person.sub })).status).toBe(201);
    const ok = await signIn(fresh, person);
    expect(ok.answer.headers.get('location')).toBe('/');
  } finally {
    await fresh.close();
  }
});
