// OpenID Connect providers (google, keycloak, linkedin, azure, apple) against oauth2-mock-server: endpoints
// and keys by discovery, the profile from the verified ID token, apple's form post, azure's rule for verified
// addresses; then native sign-in with POST /token?grant_type=id_token and manual linking.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { call } from '../helpers/http';
import { cookieOf, deliverToCallback, parseLocation, signInThroughProvider } from '../helpers/oauth-browser';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider';
import { claimsOf, uniqueEmail } from '../helpers/users';

const REDIRECT_URI = 'http://localhost:9999/callback';
const OIDC = ['google', 'keycloak', 'linkedin', 'azure', 'apple'] as const;
let oidc: OidcProvider;
let server: EmailTestServer;
const clientId = (name: string) => `${name}-client`;

beforeAll(async () => {
  oidc = await startOidcProvider();
  const env: Record<string, string> = { SITE_URL: 'http://localhost:3000', SECURITY_MANUAL_LINKING_ENABLED: 'true', ALLOWED_ID_TOKEN_ISSUERS: oidc.url, ID_TOKEN_ISSUER_CLIENT_IDS: `${oidc.url}=custom-client custom-ios` };
  for (const name of OIDC) {
    const key = `EXTERNAL_${name.toUpperCase()}`;
    Object.assign(env, {
      [`${key}_ENABLED`]: 'true', [`${key}_CLIENT_ID`]: clientId(name), [`${key}_SECRET`]: `${name}-secret`,
      [`${key}_REDIRECT_URI`]: REDIRECT_URI, [`${key}_URL`]: oidc.url,
    });
  }
  server = await startEmailTestServer({ env });
}, 90_000);

afterAll(async () => {
  await server?.close();
  await oidc?.close();
});

const user = (token: string) => call(server.url, 'GET', '/user', { token });
const person = (sub: string, extra: Record<string, unknown> = {}) => ({ sub, email: uniqueEmail(sub), email_verified: true, name: 'Grace Hopper', picture: 'https://img.example/g.png', ...extra });

describe.each(['google', 'keycloak', 'linkedin'] as const)('%s', (name) => {
  it('signs in by the discovered endpoints with the verified ID token', async () => {
    const claims = person(`${name}-1`);
    const result = await signInThroughProvider(server.url, { provider: name, test_claims: JSON.stringify(claims) });
    expect(result.authorizeUrl.toString().startsWith(`${oidc.url}/authorize?`)).toBe(true);
    expect(result.authorizeUrl.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
    const me = await user(result.fragment.access_token!);
    expect(me.body).toMatchObject({ email: claims.email, app_metadata: { provider: name, providers: [name] } });
    expect(me.body.identities[0].identity_data).toMatchObject({ sub: claims.sub, iss: oidc.url, email_verified: true, full_name: 'Grace Hopper', avatar_url: claims.picture });
  });
});

it('azure: an address counts as verified only with xms_edov', async () => {
  const unproven = person('azure-1', { email_verified: undefined });
  const refused = await signInThroughProvider(server.url, { provider: 'azure', test_claims: JSON.stringify(unproven) });
  expect(refused.fragment).toMatchObject({ error: 'access_denied', error_code: 'provider_email_needs_verification' });
  const owned = person('azure-2', { email_verified: undefined, xms_edov: true });
  const signedIn = await signInThroughProvider(server.url, { provider: 'azure', test_claims: JSON.stringify(owned) });
  expect((await user(signedIn.fragment.access_token!)).body.email).toBe(owned.email);
});

it('apple: asks for form_post and takes the posted form with the name Apple sends once', async () => {
  const claims = person('apple-1', { email_verified: 'true', name: undefined });
  const started = await fetch(`${server.url}/authorize?provider=apple&test_claims=${encodeURIComponent(JSON.stringify(claims))}`, { redirect: 'manual' });
  const authorizeUrl = new URL(started.headers.get('location')!);
  expect(authorizeUrl.searchParams.get('response_mode')).toBe('form_post');
  expect(authorizeUrl.searchParams.get('scope')).toBe('name email');
  const providerRedirect = new URL((await fetch(authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
  const form = new URLSearchParams({
    code: providerRedirect.searchParams.get('code')!,
    state: providerRedirect.searchParams.get('state')!,
    user: JSON.stringify({ name: { firstName: 'Grace', lastName: 'Hopper' }, email: claims.email }),
  });
  const location = await deliverToCallback(server.url, providerRedirect, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(started) }, body: form.toString(),
  });
  const me = await user(parseLocation(location).fragment.access_token!);
  expect(me.body).toMatchObject({ email: claims.email, user_metadata: { full_name: 'Grace Hopper' } });
});

describe('POST /token?grant_type=id_token', () => {
  const grant = (body: Record<string, unknown>, token?: string) => call(server.url, 'POST', '/token?grant_type=id_token', { body, token });
  const hex = (raw: string) => createHash('sha256').update(raw).digest('hex');

  it('signs in with a Google ID token and its nonce, as the same user as the web flow', async () => {
    const claims = person('google-native');
    const web = await signInThroughProvider(server.url, { provider: 'google', test_claims: JSON.stringify(claims) });
    const webUser = claimsOf(web.fragment.access_token!).sub;
    const { idToken, accessToken } = await oidc.issueTokens(clientId('google'), claims, hex('raw-nonce'));
    const res = await grant({ provider: 'google', id_token: idToken, nonce: 'raw-nonce', access_token: accessToken });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: webUser, email: claims.email });
  });

  it('refuses a bad nonce, a missing one, another audience, a foreign signature and a wrong at_hash', async () => {
    const claims = person('google-bad');
    const withNonce = await oidc.issueTokens(clientId('google'), claims, hex('n1'));
    for (const [body, description] of [
      [{ provider: 'google', id_token: withNonce.idToken, nonce: 'other' }, 'Nonces mismatch'],
      [{ provider: 'google', id_token: withNonce.idToken }, 'Passed nonce and nonce in id_token should either both exist or not.'],
    ] as const) {
      const res = await grant(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid request', error_description: description });
    }
    const foreignAudience = await oidc.issueTokens('someone-else', claims);
    expect((await grant({ provider: 'google', id_token: foreignAudience.idToken })).body.error_description).toMatch(/^Bad ID token: .*aud/);

    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await new SignJWT({ ...claims, iss: oidc.url, aud: clientId('google') })
      .setProtectedHeader({ alg: 'RS256', kid: 'forged' }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    const forgedRes = await grant({ provider: 'google', id_token: forged });
    expect(forgedRes.status).toBe(400);
    expect(forgedRes.body.error_description).toMatch(/^Bad ID token/);

    const hashed = await oidc.issueTokens(clientId('google'), { ...claims, at_hash: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const atHash = await grant({ provider: 'google', id_token: hashed.idToken, access_token: hashed.accessToken });
    expect(atHash.body.error_description).toMatch(/at_hash/);
  });

  it('a provider without native sign-in and an issuer outside ALLOWED_ID_TOKEN_ISSUERS are refused', async () => {
    const unsupported = await grant({ provider: 'facebook', id_token: 'x.y.z' });
    expect(unsupported.body).toEqual({ error: 'invalid request', error_description: 'Provider facebook does not support ID token sign-in' });
    const notAllowed = await grant({ client_id: 'c', issuer: 'https://evil.example', id_token: 'x.y.z' });
    expect(notAllowed.body).toEqual({ error: 'invalid request', error_description: 'Custom OIDC provider "https://evil.example" not allowed' });
  });

  it('signs in with client_id and an allowed issuer', async () => {
    const claims = person('custom-1');
    const { idToken } = await oidc.issueTokens('custom-client', claims);
    const res = await grant({ client_id: 'custom-client', issuer: oidc.url, id_token: idToken });
    expect(res.status).toBe(200);
    expect(res.body.user.app_metadata.provider).toBe(oidc.url);
  });

  it('an allowed issuer\'s token minted for another app is refused, whatever client_id the request names (issue 26)', async () => {
    const { idToken } = await oidc.issueTokens('another-app', person('custom-2'));
    const named = await grant({ client_id: 'another-app', issuer: oidc.url, id_token: idToken });
    expect(named.status).toBe(400);
    expect(named.body.error_description).toBe(`client_id another-app is not configured for issuer "${oidc.url}"`);
    const relabelled = await grant({ client_id: 'custom-client', issuer: oidc.url, id_token: idToken });
    expect(relabelled.status).toBe(400);
    expect(relabelled.body.error_description).toMatch(/^Bad ID token/);
    // an ID token without exp would be valid forever: refused (issue 26)
    const forever = await oidc.issueTokens('custom-client', { ...person('custom-4'), exp: null });
    const noExp = await grant({ client_id: 'custom-client', issuer: oidc.url, id_token: forever.idToken });
    expect(noExp.status).toBe(400);
    expect(noExp.body.error_description).toMatch(/^Bad ID token: .*exp/);
    // another configured client id of the same issuer works
    const ios = await oidc.issueTokens('custom-ios', person('custom-3'));
    expect((await grant({ client_id: 'custom-ios', issuer: oidc.url, id_token: ios.idToken })).status).toBe(200);
  });

  it('link_identity adds the identity to the signed-in user', async () => {
    const email = uniqueEmail('linker');
    const admin = await server.adminToken();
    await call(server.url, 'POST', '/admin/users', { token: admin, body: { email, password: 'linker-password', email_confirm: true } });
    const session = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'linker-password' } })).body;
    const { idToken } = await oidc.issueTokens(clientId('google'), person('google-linked', { email: uniqueEmail('other') }));
    expect((await grant({ provider: 'google', id_token: idToken, link_identity: true })).status).toBe(401);
    const linked = await grant({ provider: 'google', id_token: idToken, link_identity: true }, session.access_token);
    expect(linked.status).toBe(200);
    expect(linked.body.user.id).toBe(session.user.id);
    expect(linked.body.user.app_metadata.providers).toEqual(['email', 'google']);
  });
});

describe('manual linking', () => {
  it('links a provider to the signed-in user, unlinks it, and keeps the last identity', async () => {
    const email = uniqueEmail('manual');
    await call(server.url, 'POST', '/admin/users', { token: await server.adminToken(), body: { email, password: 'manual-password', email_confirm: true } });
    const session = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'manual-password' } })).body;
    const other = person('keycloak-manual', { email: uniqueEmail('kc') });
    const linked = await signInThroughProvider(server.url, { provider: 'keycloak', test_claims: JSON.stringify(other) }, { token: session.access_token });
    expect(claimsOf(linked.fragment.access_token!).sub).toBe(session.user.id);
    const me = (await user(session.access_token)).body;
    expect(me.app_metadata.providers).toEqual(['email', 'keycloak']);
    const keycloak = me.identities.find((i: { provider: string }) => i.provider === 'keycloak');
    const emailIdentity = me.identities.find((i: { provider: string }) => i.provider === 'email');

    // The same keycloak account cannot be linked to a second user.
    const second = uniqueEmail('second');
    await call(server.url, 'POST', '/admin/users', { token: await server.adminToken(), body: { email: second, password: 'second-password', email_confirm: true } });
    const secondSession = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email: second, password: 'second-password' } })).body;
    const taken = await signInThroughProvider(server.url, { provider: 'keycloak', test_claims: JSON.stringify(other) }, { token: secondSession.access_token });
    expect(taken.fragment).toMatchObject({ error_code: 'identity_already_exists' });

    expect((await call(server.url, 'DELETE', `/user/identities/${crypto.randomUUID()}`, { token: session.access_token })).body).toMatchObject({ error_code: 'identity_not_found' });
    const unlinked = await call(server.url, 'DELETE', `/user/identities/${keycloak.identity_id}`, { token: session.access_token });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body).toEqual({});
    expect((await user(session.access_token)).body.app_metadata.providers).toEqual(['email']);
    const last = await call(server.url, 'DELETE', `/user/identities/${emailIdentity.identity_id}`, { token: session.access_token });
    expect(last.status).toBe(422);
    expect(last.body).toMatchObject({ error_code: 'single_identity_not_deletable' });
  });
});
