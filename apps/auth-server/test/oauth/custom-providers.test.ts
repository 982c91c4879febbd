// Custom OAuth 2.0 / OIDC providers (issue 41) end to end with @supabase/auth-js 2.109: admin.customProviders.*,
// signInWithOAuth({provider: 'custom:…'}) through a real OpenID Connect provider (oauth2-mock-server over HTTPS on
// 127.0.0.1, its certificate from a CA made by this test), carrying the browser's cookie from /authorize to
// /callback; an OAuth 2.0 provider with a userinfo mapping; signInWithIdToken with audience checks; linking; the
// e-mail verification rule; and the outbound guard: http, loopback outside OUTBOUND_ALLOWED_NETWORKS, a name that
// resolves to a private address, a name whose answer changes after the check, a redirect to a private address,
// and SAML metadata_url behind the same guard.
import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import https from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { AuthClient, GoTrueAdminApi } from '@supabase/auth-js';
import { call } from '../helpers/http';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider';
import { secondInstance, startTestServer, type TestServer } from '../helpers/server';
import { createTestCa, type TestCa } from '../helpers/test-ca';
import { generateKeyPairSync } from 'node:crypto';

jest.setTimeout(120_000);

let ca: TestCa;
let idp: OidcProvider;
let server: TestServer;
let strict: TestServer;
let limited: TestServer;
let off: TestServer;
let redirector: https.Server;
let redirectorPort: number;
let redirectTarget = '';
// The second issuer's behaviour: redirect (to redirectTarget), serve its discovery document, or fail.
let issuerMode: 'redirect' | 'serve' | 'fail' = 'redirect';
let issuerRequests = 0;
let admin: GoTrueAdminApi;
let adminToken: string;
const SITE = 'http://localhost:3000';

// The app's name resolution: names of this test, and a name whose answer changes after its first lookup.
let flips = 0;
const hosts: Record<string, string> = { 'intranet.keyzone.test': '10.20.30.40', 'idp.keyzone.test': '127.0.0.1' };
const testLookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
  let address = hosts[hostname];
  if (hostname === 'flip.keyzone.test') address = flips++ === 0 ? '93.184.216.34' : '10.0.0.7';
  if (!address) return dns.lookup(hostname, options, callback as never);
  const family = address.includes(':') ? 6 : 4;
  if (options.all) callback(null, [{ address, family }]);
  else callback(null, address, family);
}) as unknown as LookupFunction;

const tokenFor = (s: TestServer) => s.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 86400, now: s.clock.now() });

beforeAll(async () => {
  ca = createTestCa();
  const leaf = ca.issue(['localhost', 'idp.keyzone.test'], ['127.0.0.1']);
  idp = await startOidcProvider({ tls: leaf });
  // An issuer whose discovery document redirects elsewhere (redirectTarget).
  redirector = https.createServer({ key: leaf.keyPem, cert: leaf.certPem }, (_req, res) => {
    issuerRequests += 1;
    if (issuerMode === 'redirect') return res.writeHead(302, { location: redirectTarget }).end();
    if (issuerMode === 'fail') return res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      issuer: `https://idp.keyzone.test:${redirectorPort}`, authorization_endpoint: `${idp.url}/authorize`, token_endpoint: `${idp.url}/token`, jwks_uri: `${idp.url}/jwks`,
    }));
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorPort = (redirector.address() as AddressInfo).port;
  const outbound = (deps: TestServer['deps']) => ({ ...deps, outboundHttpsAgent: new https.Agent({ ca: ca.caPem }), outboundLookup: testLookup });
  const samlKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;
  [server, strict, limited, off] = await Promise.all([
    startTestServer({ env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32', CUSTOM_OAUTH_DISCOVERY_REFRESH_PERIOD: '1h', MAILER_AUTOCONFIRM: 'true', SECURITY_MANUAL_LINKING_ENABLED: 'true' }, configure: outbound }),
    startTestServer({ env: { SAML_ENABLED: 'true', SAML_PRIVATE_KEY: samlKey }, configure: outbound }),
    startTestServer({ env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8', CUSTOM_OAUTH_MAX_PROVIDERS: '1' }, configure: outbound }),
    startTestServer({ env: { CUSTOM_OAUTH_ENABLED: 'false' } }),
  ]);
  adminToken = await tokenFor(server);
  admin = new GoTrueAdminApi({ url: server.url, headers: { Authorization: `Bearer ${adminToken}` } });
});
afterAll(async () => {
  redirector?.closeAllConnections();
  await Promise.all([server?.close(), strict?.close(), limited?.close(), off?.close(), idp?.close(), new Promise((r) => redirector?.close(r))]);
});

const oidcParams = (identifier: string, extra: Record<string, unknown> = {}) => ({
  provider_type: 'oidc' as const, identifier, name: 'Acme SSO', client_id: 'acme-web', client_secret: 'acme-secret-1',
  issuer: idp.url, acceptable_client_ids: ['acme-ios'], scopes: ['email', 'profile'], ...extra,
});
const oauth2Params = (identifier: string, extra: Record<string, unknown> = {}) => ({
  provider_type: 'oauth2' as const, identifier, name: 'Acme OAuth', client_id: 'acme-oauth', client_secret: 'acme-oauth-secret',
  authorization_url: `${idp.url}/authorize`, token_url: `${idp.url}/token`, userinfo_url: `${idp.url}/userinfo`, scopes: ['openid'],
  attribute_mapping: { preferred_username: 'name' }, custom_claims_allowlist: ['name'], ...extra,
});

const client = () => new AuthClient({ url: server.url, flowType: 'pkce', persistSession: true, autoRefreshToken: false, detectSessionInUrl: false, storage: memoryStorage() });
function memoryStorage() {
  const items = new Map<string, string>();
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v), removeItem: (k: string) => void items.delete(k) };
}

const cookieOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

/** The browser: /authorize (keeping its cookie), the provider's consent, then /callback with the cookie. */
async function browse(authorizeUrl: string, options: { dropCookie?: boolean } = {}) {
  const started = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(started.status).toBe(302);
  const providerUrl = new URL(started.headers.get('location')!);
  const cookie = cookieOf(started);
  const consent = await ca.request(providerUrl.toString());
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.location as string);
  const done = await fetch(`${server.url}/callback${back.search}`, { redirect: 'manual', headers: options.dropCookie || !cookie ? {} : { cookie } });
  expect(done.status).toBe(302);
  const location = new URL(done.headers.get('location')!);
  return { providerUrl, location, query: Object.fromEntries(location.searchParams), fragment: Object.fromEntries(new URLSearchParams(location.hash.slice(1))) };
}

async function signIn(provider: `custom:${string}`, claims: Record<string, unknown>, options: { dropCookie?: boolean } = {}) {
  const auth = client();
  const { data, error } = await auth.signInWithOAuth({
    provider, options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true, queryParams: { test_claims: JSON.stringify(claims) } },
  });
  expect(error).toBeNull();
  const browsed = await browse(data.url!, options);
  return { auth, ...browsed };
}

/** An ID token from the provider for `clientId`, through its own code flow. */
async function idTokenFor(clientId: string, claims: Record<string, unknown>, nonce?: string): Promise<string> {
  const authorize = new URL(`${idp.url}/authorize`);
  const params: Record<string, string> = { client_id: clientId, redirect_uri: 'https://app.example/cb', response_type: 'code', state: 's', test_claims: JSON.stringify(claims) };
  if (nonce) params.nonce = nonce;
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  const consent = await ca.request(authorize.toString());
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const token = await ca.request(`${idp.url}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: 'https://app.example/cb' }).toString(),
  });
  return (JSON.parse(token.body) as { id_token: string }).id_token;
}

describe('admin.customProviders', () => {
  it('create (discovery fetched, secret sealed and never returned), list with ?type, get, update, delete', async () => {
    const created = await admin.customProviders.createProvider(oidcParams('custom:crud'));
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      provider_type: 'oidc', identifier: 'custom:crud', name: 'Acme SSO', client_id: 'acme-web', acceptable_client_ids: ['acme-ios'],
      scopes: ['openid', 'email', 'profile'], pkce_enabled: true, enabled: true, email_optional: false, skip_nonce_check: false, issuer: idp.url,
      discovery_document: { issuer: idp.url, authorization_endpoint: `${idp.url}/authorize`, token_endpoint: `${idp.url}/token`, jwks_uri: `${idp.url}/jwks` },
    });
    expect(JSON.stringify(created.data)).not.toMatch(/client_secret|acme-secret-1/);
    const row = await server.deps.db.selectFrom('auth.custom_oauth_providers').select(['client_secret']).where('identifier', '=', 'custom:crud').executeTakeFirstOrThrow();
    expect(row.client_secret).toMatch(/^kz1:/);
    expect(row.client_secret).not.toContain('acme-secret-1');

    const oauth2 = await admin.customProviders.createProvider(oauth2Params('custom:crud-oauth'));
    expect(oauth2.error).toBeNull();
    expect(oauth2.data).toMatchObject({ provider_type: 'oauth2', scopes: ['openid'], authorization_url: `${idp.url}/authorize`, userinfo_url: `${idp.url}/userinfo` });
    expect(oauth2.data).not.toHaveProperty('discovery_document');

    const all = await admin.customProviders.listProviders();
    expect(all.data.providers.map((p) => p.identifier)).toEqual(expect.arrayContaining(['custom:crud', 'custom:crud-oauth']));
    const onlyOauth2 = await admin.customProviders.listProviders({ type: 'oauth2' });
    expect(onlyOauth2.data.providers.every((p) => p.provider_type === 'oauth2')).toBe(true);
    expect(onlyOauth2.data.providers.map((p) => p.identifier)).toContain('custom:crud-oauth');
    const badType = await call(server.url, 'GET', '/admin/custom-providers?type=saml', { token: adminToken });
    expect(badType.status).toBe(400);

    const got = await admin.customProviders.getProvider('custom:crud');
    expect(got.data).toMatchObject({ identifier: 'custom:crud', id: created.data!.id });
    const updated = await admin.customProviders.updateProvider('custom:crud', { name: 'Acme Corp', client_secret: 'acme-secret-2', enabled: false });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ name: 'Acme Corp', enabled: false, client_id: 'acme-web' });
    const after = await server.deps.db.selectFrom('auth.custom_oauth_providers').select(['client_secret']).where('identifier', '=', 'custom:crud').executeTakeFirstOrThrow();
    expect(after.client_secret).not.toBe(row.client_secret);

    expect((await admin.customProviders.deleteProvider('custom:crud')).error).toBeNull();
    const gone = await admin.customProviders.getProvider('custom:crud');
    expect(gone.error).toMatchObject({ status: 404, code: 'custom_provider_not_found' });
    expect((await admin.customProviders.deleteProvider('custom:crud')).error).toMatchObject({ status: 404 });
  });

  it('refuses what GoTrue refuses, with 400s', async () => {
    const cases: Array<[Record<string, unknown>, RegExp, string?]> = [
      [{ ...oidcParams('acme') }, /must start with 'custom:'/],
      [{ ...oidcParams('custom:Acme') }, /lowercase/],
      [{ ...oidcParams('custom:') }, /lowercase/],
      [{ ...oidcParams(`custom:${'a'.repeat(50)}`) }, /at most 50/],
      [{ ...oidcParams('custom:x1'), provider_type: 'saml' }, /provider_type must be either/],
      [{ ...oidcParams('custom:x1'), issuer: undefined }, /issuer is required/],
      [{ ...oidcParams('custom:x1'), client_secret: '' }, /client_secret is required/],
      [{ ...oauth2Params('custom:x1'), token_url: undefined }, /token_url is required/],
      [{ ...oidcParams('custom:x1'), authorization_params: { state: 'fixed' } }, /reserved OAuth parameter: state/],
      [{ ...oidcParams('custom:x1'), authorization_params: { prompt: 1 } }, /must be a string/],
      [{ ...oidcParams('custom:x1'), attribute_mapping: { role: 'groups' } }, /protected system field: role/],
      [{ ...oidcParams('custom:x1'), attribute_mapping: { email_verified: 'verified' } }, /protected system field/],
      [{ ...oidcParams('custom:x1'), scopes: 'openid' }, /scopes/],
      [{ ...oidcParams('custom:x1'), issuer: `${idp.url}/wrong-issuer` }, /OIDC discovery .* failed/],
    ];
    for (const [body, message] of cases) {
      const res = await call(server.url, 'POST', '/admin/custom-providers', { token: adminToken, body });
      expect({ body, status: res.status, code: res.body.error_code }).toEqual({ body, status: 400, code: 'validation_failed' });
      expect(res.body.msg).toMatch(message);
    }
    expect((await admin.customProviders.createProvider(oidcParams('custom:twice'))).error).toBeNull();
    const again = await admin.customProviders.createProvider(oidcParams('custom:twice'));
    expect(again.error).toMatchObject({ status: 400, code: 'conflict' });
    const wrongGet = await call(server.url, 'GET', '/admin/custom-providers/twice', { token: adminToken });
    expect(wrongGet.status).toBe(400);
    const user = await call(server.url, 'GET', '/admin/custom-providers', {});
    expect(user.status).toBe(401);
  });

  it('AUTH_CUSTOM_OAUTH_ENABLED=false: the admin API answers 404 feature_disabled, sign-ins 400', async () => {
    const token = await tokenFor(off);
    const list = await call(off.url, 'GET', '/admin/custom-providers', { token });
    expect([list.status, list.body.error_code]).toEqual([404, 'feature_disabled']);
    const create = await call(off.url, 'POST', '/admin/custom-providers', { token, body: oidcParams('custom:nope') });
    expect([create.status, create.body.error_code]).toEqual([404, 'feature_disabled']);
    const authorize = await call(off.url, 'GET', '/authorize?provider=custom:nope');
    expect(authorize.status).toBe(400);
    const idToken = await call(off.url, 'POST', '/token?grant_type=id_token', { body: { provider: 'custom:nope', id_token: 'x.y.z' } });
    expect(idToken.status).toBe(400);
  });

  it('CUSTOM_OAUTH_MAX_PROVIDERS', async () => {
    const token = await tokenFor(limited);
    const limitedAdmin = new GoTrueAdminApi({ url: limited.url, headers: { Authorization: `Bearer ${token}` } });
    expect((await limitedAdmin.customProviders.createProvider(oauth2Params('custom:first'))).error).toBeNull();
    const second = await limitedAdmin.customProviders.createProvider(oauth2Params('custom:second'));
    expect(second.error).toMatchObject({ status: 400, code: 'over_custom_provider_quota' });
  });
});

describe('sign-in with a custom provider', () => {
  beforeAll(async () => {
    expect((await admin.customProviders.createProvider(oidcParams('custom:acme'))).error).toBeNull();
    expect((await admin.customProviders.createProvider(oauth2Params('custom:acme-oauth'))).error).toBeNull();
  });

  it('signInWithOAuth({provider: "custom:acme"}): PKCE to the provider, the browser\'s cookie, a session for a new user', async () => {
    const email = `alice-${randomUUID().slice(0, 8)}@acme.test`;
    const { auth, providerUrl, query } = await signIn('custom:acme', { sub: `acme-${email}`, email, email_verified: true, name: 'Alice' });
    expect(providerUrl.origin).toBe(idp.url);
    expect(providerUrl.searchParams.get('client_id')).toBe('acme-web');
    expect(providerUrl.searchParams.get('redirect_uri')).toBe('http://localhost:9999/callback');
    expect(providerUrl.searchParams.get('scope')).toBe('openid email profile');
    expect(providerUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(query.code).toBeDefined();
    const { data, error } = await auth.exchangeCodeForSession(query.code!);
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, app_metadata: { provider: 'custom:acme', providers: ['custom:acme'] } });
    expect(data.user!.identities).toEqual([expect.objectContaining({ provider: 'custom:acme', identity_data: expect.objectContaining({ email, email_verified: true, iss: idp.url }) })]);
  });

  it('a callback without the cookie of the browser that started is refused', async () => {
    const { fragment } = await signIn('custom:acme', { sub: 'acme-mallory', email: 'mallory@acme.test', email_verified: true }, { dropCookie: true });
    expect(fragment.error_description).toMatch(/another browser/);
  });

  it('an OAuth 2.0 provider: explicit endpoints, the userinfo answer through attribute_mapping and custom_claims_allowlist', async () => {
    const email = `olga-${randomUUID().slice(0, 8)}@acme.test`;
    const { auth, query } = await signIn('custom:acme-oauth', { sub: `oauth-${email}`, email, email_verified: true, name: 'Olga' });
    const { data, error } = await auth.exchangeCodeForSession(query.code!);
    expect(error).toBeNull();
    expect(data.user!.identities![0]).toMatchObject({
      provider: 'custom:acme-oauth', identity_data: expect.objectContaining({ preferred_username: 'Olga', custom_claims: { name: 'Olga' }, email }),
    });
  });

  it('an unverified address never joins an existing account; a verified one links to it', async () => {
    const email = `bob-${randomUUID().slice(0, 8)}@acme.test`;
    const victim = client();
    const signedUp = await victim.signUp({ email, password: 'password-123' });
    expect(signedUp.error).toBeNull();
    const takeover = await signIn('custom:acme', { sub: `attacker-${email}`, email, email_verified: false });
    expect(takeover.query.error).toBe('access_denied');
    expect(takeover.query.error_code).toBe('provider_email_needs_verification');
    const identities = await server.deps.db.selectFrom('auth.identities').select('provider').where('user_id', '=', signedUp.data.user!.id).execute();
    expect(identities.map((i) => i.provider)).not.toContain('custom:acme');

    const owner = await signIn('custom:acme', { sub: `owner-${email}`, email, email_verified: true });
    const { data } = await owner.auth.exchangeCodeForSession(owner.query.code!);
    expect(data.user!.id).toBe(signedUp.data.user!.id);
  });

  it('linkIdentity({provider: "custom:acme"}) joins the identity to the signed-in user', async () => {
    const email = `carol-${randomUUID().slice(0, 8)}@example.com`;
    const auth = client();
    expect((await auth.signUp({ email, password: 'password-123' })).error).toBeNull();
    const { data, error } = await auth.linkIdentity({ provider: 'custom:acme', options: { redirectTo: `${SITE}/linked`, skipBrowserRedirect: true } });
    expect(error).toBeNull();
    const providerUrl = new URL(data.url!);
    providerUrl.searchParams.set('test_claims', JSON.stringify({ sub: `carol-at-acme-${email}`, email: `carol@acme.test`, email_verified: true }));
    const consent = await ca.request(providerUrl.toString());
    const back = new URL(consent.headers.location as string);
    const done = await fetch(`${server.url}/callback${back.search}`, { redirect: 'manual' });
    const location = new URL(done.headers.get('location')!);
    expect(location.searchParams.get('error')).toBeNull();
    const user = await auth.getUser();
    expect(user.data.user!.identities!.map((i) => i.provider).sort()).toEqual(['custom:acme', 'email']);
  });

  it('signInWithIdToken({provider: "custom:acme"}): audience client_id or acceptable_client_ids, nonce, OIDC only', async () => {
    const email = `dave-${randomUUID().slice(0, 8)}@acme.test`;
    const auth = client();
    const ios = await auth.signInWithIdToken({ provider: 'custom:acme', token: await idTokenFor('acme-ios', { sub: `dave-${email}`, email, email_verified: true }) });
    expect(ios.error).toBeNull();
    expect(ios.data.user!.identities![0]!.provider).toBe('custom:acme');

    const other = await client().signInWithIdToken({ provider: 'custom:acme', token: await idTokenFor('another-app', { sub: 'x', email, email_verified: true }) });
    expect(other.error?.message).toMatch(/Bad ID token.*aud/);

    const nonce = 'raw-nonce-123';
    const { createHash } = await import('node:crypto');
    const hashed = createHash('sha256').update(nonce).digest('hex');
    const withNonce = await idTokenFor('acme-web', { sub: `dave-${email}`, email, email_verified: true, nonce: hashed });
    expect((await client().signInWithIdToken({ provider: 'custom:acme', token: withNonce, nonce: 'wrong' })).error?.message).toMatch(/Nonces mismatch/);
    expect((await client().signInWithIdToken({ provider: 'custom:acme', token: withNonce, nonce })).error).toBeNull();

    const oauth2 = await client().signInWithIdToken({ provider: 'custom:acme-oauth', token: await idTokenFor('acme-oauth', { sub: 'y' }) });
    expect(oauth2.error?.message).toMatch(/not an OIDC provider/);
    const unknown = await client().signInWithIdToken({ provider: 'custom:nobody', token: withNonce });
    expect(unknown.error?.message).toMatch(/could not be found/);
  });

  it('the discovery document is stored, re-read once per refresh period, not once per sign-in', async () => {
    const cachedAt = async () => (await server.deps.db.selectFrom('auth.custom_oauth_providers').select('discovery_cached_at')
      .where('identifier', '=', 'custom:acme').executeTakeFirstOrThrow()).discovery_cached_at!.getTime();
    const before = await cachedAt();
    const start = () => fetch(`${server.url}/authorize?provider=custom:acme&redirect_to=${SITE}`, { redirect: 'manual' });
    expect((await start()).status).toBe(302);
    expect(await cachedAt()).toBe(before);
    server.clock.advance(3601);
    const starts = await Promise.all([start(), start(), start()]);
    expect(starts.map((s) => s.status)).toEqual([302, 302, 302]);
    const refreshed = await cachedAt();
    expect(refreshed).toBeGreaterThan(before);
    expect((await start()).status).toBe(302);
    expect(await cachedAt()).toBe(refreshed);
    server.clock.set(new Date()); // the provider's tokens carry real times
  });

  it('an issuer that is down at refresh time: the stored document is used, and not asked again at every sign-in', async () => {
    issuerMode = 'serve';
    const created = await admin.customProviders.createProvider(oidcParams('custom:flaky', { issuer: `https://idp.keyzone.test:${redirectorPort}` }));
    expect(created.error).toBeNull();
    issuerMode = 'fail';
    issuerRequests = 0;
    server.clock.advance(3601);
    const start = () => fetch(`${server.url}/authorize?provider=custom:flaky&redirect_to=${SITE}`, { redirect: 'manual' });
    for (let i = 0; i < 5; i += 1) {
      const res = await start();
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(new RegExp(`^${idp.url}/authorize`));
    }
    expect(issuerRequests).toBe(1);
    issuerMode = 'redirect';
    server.clock.set(new Date()); // the provider's tokens carry real times
  });

  it('two instances: a sign-in started on one ends on the other; both refresh the stored discovery without conflict', async () => {
    const other = await secondInstance(server);
    try {
      const email = `erin-${randomUUID().slice(0, 8)}@acme.test`;
      const auth = client();
      const { data } = await auth.signInWithOAuth({
        provider: 'custom:acme', options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true, queryParams: { test_claims: JSON.stringify({ sub: `erin-${email}`, email, email_verified: true }) } },
      });
      const started = await fetch(data.url!, { redirect: 'manual' });
      const consent = await ca.request(started.headers.get('location')!);
      const back = new URL(consent.headers.location as string);
      const done = await fetch(`${other.url}/callback${back.search}`, { redirect: 'manual', headers: { cookie: cookieOf(started) } });
      const code = new URL(done.headers.get('location')!).searchParams.get('code');
      expect((await auth.exchangeCodeForSession(code!)).data.user?.email).toBe(email);

      // Past the refresh period even of a document stored at an earlier test's moved clock.
      server.clock.advance(7300);
      const before = server.clock.now().getTime();
      const starts = await Promise.all([server.url, other.url, server.url, other.url].map((url) => fetch(`${url}/authorize?provider=custom:acme&redirect_to=${SITE}`, { redirect: 'manual' })));
      expect(starts.map((r) => r.status)).toEqual([302, 302, 302, 302]);
      const row = await server.deps.db.selectFrom('auth.custom_oauth_providers').select(['cached_discovery', 'discovery_cached_at']).where('identifier', '=', 'custom:acme').executeTakeFirstOrThrow();
      expect(row.cached_discovery).toMatchObject({ issuer: idp.url });
      expect(row.discovery_cached_at!.getTime()).toBe(before);
    } finally {
      server.clock.set(new Date());
      await other.close();
    }
  });

  it('a disabled provider cannot be signed in with', async () => {
    expect((await admin.customProviders.createProvider(oidcParams('custom:off', { enabled: false }))).error).toBeNull();
    const res = await call(server.url, 'GET', '/authorize?provider=custom:off');
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/disabled/);
  });

  it('a client secret sealed under another key makes the provider unusable with a 400, never a 500', async () => {
    expect((await admin.customProviders.createProvider(oidcParams('custom:rekeyed'))).error).toBeNull();
    const row = await server.deps.db.selectFrom('auth.custom_oauth_providers').select(['client_secret']).where('identifier', '=', 'custom:rekeyed').executeTakeFirstOrThrow();
    const [format, , payload] = row.client_secret.split(':');
    await server.deps.db.updateTable('auth.custom_oauth_providers').set({ client_secret: `${format}:otherkey:${payload}` }).where('identifier', '=', 'custom:rekeyed').execute();
    const res = await call(server.url, 'GET', '/authorize?provider=custom:rekeyed');
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('provider_disabled');
    expect(res.body.msg).toMatch(/sets its client secret again/);
  });
});

describe('the outbound guard (server-side request forgery)', () => {
  const create = (target: TestServer, token: string, body: Record<string, unknown>) => call(target.url, 'POST', '/admin/custom-providers', { token, body });

  it('an http URL', async () => {
    const res = await create(server, adminToken, oidcParams('custom:plain', { issuer: idp.url.replace('https:', 'http:') }));
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/URL must use HTTPS/);
    const oauth2 = await create(server, adminToken, oauth2Params('custom:plain2', { token_url: 'http://example.com/token' }));
    expect(oauth2.body.msg).toMatch(/token_url: URL must use HTTPS/);
  });

  it('loopback outside OUTBOUND_ALLOWED_NETWORKS: by name, by address, v4-mapped IPv6', async () => {
    const token = await tokenFor(strict);
    const port = new URL(idp.url).port;
    for (const issuer of [idp.url, `https://127.0.0.1:${port}`, `https://[::ffff:127.0.0.1]:${port}`, `https://[::1]:${port}`]) {
      const res = await create(strict, token, oidcParams('custom:loop', { issuer }));
      expect({ issuer, status: res.status }).toEqual({ issuer, status: 400 });
      expect(res.body.msg).toMatch(/loopback/);
    }
    const metadata = await call(strict.url, 'POST', '/admin/sso/providers', { token, body: { type: 'saml', metadata_url: `https://localhost:${port}/metadata` } });
    expect(metadata.status).toBe(400);
    expect(metadata.body.msg).toMatch(/loopback/);
  });

  it('a name that resolves to a private address; a name whose answer changes after the check', async () => {
    const res = await create(server, adminToken, oidcParams('custom:intranet', { issuer: 'https://intranet.keyzone.test' }));
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/intranet\.keyzone\.test resolves to an address that may not be reached \(10\.20\.30\.40 is a private network address\)/);
    // The first answer is public (the early check passes), the next private: the connection itself is refused.
    flips = 0;
    const token = await tokenFor(strict);
    const rebound = await create(strict, token, oidcParams('custom:flip', { issuer: 'https://flip.keyzone.test' }));
    expect(rebound.status).toBe(400);
    expect(rebound.body.msg).toMatch(/OIDC discovery .* failed: .*10\.0\.0\.7 is a private network address/);
    expect(flips).toBe(2);
  });

  it('a redirect from the issuer to a private or link-local address', async () => {
    const issuer = `https://idp.keyzone.test:${redirectorPort}`;
    for (const [target, reason] of [
      ['https://intranet.keyzone.test/.well-known/openid-configuration', /10\.20\.30\.40 is a private network address/],
      ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
      ['http://idp.keyzone.test/.well-known/openid-configuration', /URL must use HTTPS/],
    ] as const) {
      redirectTarget = target;
      const res = await create(server, adminToken, oidcParams('custom:redirected', { issuer }));
      expect({ target, status: res.status }).toEqual({ target, status: 400 });
      expect(res.body.msg).toMatch(reason);
    }
  });
});
