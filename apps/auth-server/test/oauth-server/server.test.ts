// The OAuth server's settings and its endpoints beyond the code flow: off by default, refused with only an HS256
// key, the discovery document, where /oauth/authorize sends the browser, dynamic registration (and its limit),
// userinfo by scope, revocation and introspection, and the flow spread over two instances.
import { loadAuthConfig } from '@keyzone/config';
import { call } from '../helpers/http';
import { secondInstance, startTestServer, TEST_JWT_SECRET } from '../helpers/server';
import { claimsOf } from '../helpers/users';
import {
  approveFlow, authorize, authorizationIdOf, basicAuth, pkce, registerClient, signedInUser, signingKeys, startOAuthServer, tokenRequest,
  type OAuthTestServer,
} from './helpers';
import { HOSTED_CONSENT_PATH } from '../../src/services/oauth-server/metadata';

jest.setTimeout(90_000);

const REDIRECT = 'https://app.example.com/cb';

describe('settings', () => {
  it('is off by default: every endpoint answers 404 feature_disabled', async () => {
    const server = await startTestServer();
    try {
      for (const [method, path] of [
        ['GET', '/.well-known/openid-configuration'], ['GET', '/.well-known/oauth-authorization-server'], ['GET', '/oauth/authorize'],
        ['POST', '/oauth/token'], ['POST', '/oauth/clients/register'], ['GET', '/admin/oauth/clients'], ['GET', '/user/oauth/grants'],
      ] as const) {
        const res = await call(server.url, method, path, { body: method === 'POST' ? {} : undefined });
        expect(res.status).toBe(404);
        expect(res.body.error_code).toBe('feature_disabled');
      }
    } finally {
      await server.close();
    }
  });

  it('refuses to start with only an HS256 key, naming the settings', () => {
    const base = { AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: 'http://localhost:9999', DATABASE_URL: 'postgres://x/y', AUTH_OAUTH_SERVER_ENABLED: 'true' };
    expect(() => loadAuthConfig({ env: { ...base, AUTH_JWT_SECRET: TEST_JWT_SECRET }, envDirs: [] })).toThrow(
      /AUTH_OAUTH_SERVER_ENABLED: needs an asymmetric signing key \(RS256, ES256 or EdDSA\) in AUTH_JWT_KEYS.*AUTH_JWT_SECRET cannot be published/,
    );
    const octKey = JSON.stringify([{ kty: 'oct', k: Buffer.from(TEST_JWT_SECRET).toString('base64url'), kid: 'h', alg: 'HS256', key_ops: ['sign', 'verify'] }]);
    expect(() => loadAuthConfig({ env: { ...base, AUTH_JWT_KEYS: octKey }, envDirs: [] })).toThrow(/an HS256 key cannot be published/);
    const ok = loadAuthConfig({ env: { ...base, AUTH_JWT_KEYS: signingKeys(), AUTH_OAUTH_SERVER_AUTHORIZATION_TTL: '3m' }, envDirs: [] });
    expect(ok.oauthServer).toEqual({
      enabled: true, allowDynamicRegistration: false, authorizationPath: undefined, authorizationTtl: 180, defaultScope: 'email', rateLimitDynamicRegister: 10,
    });
    expect(() => loadAuthConfig({ env: { ...base, AUTH_JWT_KEYS: signingKeys(), AUTH_OAUTH_SERVER_DEFAULT_SCOPE: 'email admin' }, envDirs: [] })).toThrow(
      /AUTH_OAUTH_SERVER_DEFAULT_SCOPE: expected space-separated scopes/,
    );
    expect(() => loadAuthConfig({ env: { ...base, AUTH_JWT_KEYS: signingKeys(), AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: 'https://evil.example.com/' }, envDirs: [] })).toThrow(
      /AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: expected a path/,
    );
  });
});

describe('with the OAuth server on', () => {
  let server: OAuthTestServer;
  beforeAll(async () => {
    server = await startOAuthServer({ RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: '3', OAUTH_SERVER_DEFAULT_SCOPE: 'openid email' });
  });
  afterAll(async () => server?.close());

  it('serves one discovery document at both well-known paths, with the JWT issuer and its endpoints', async () => {
    const oidc = await call(server.issuer, 'GET', '/.well-known/openid-configuration');
    const rfc8414 = await call(server.issuer, 'GET', '/.well-known/oauth-authorization-server');
    expect(oidc.body).toEqual(rfc8414.body);
    expect(oidc.body).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/oauth/authorize`,
      token_endpoint: `${server.issuer}/oauth/token`,
      userinfo_endpoint: `${server.issuer}/oauth/userinfo`,
      jwks_uri: `${server.issuer}/.well-known/jwks.json`,
      registration_endpoint: `${server.issuer}/oauth/clients/register`,
      revocation_endpoint: `${server.issuer}/oauth/revoke`,
      introspection_endpoint: `${server.issuer}/oauth/introspect`,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['ES256'],
      response_types_supported: ['code'],
    });
    // The same document at the root mount (the router answers at / and /auth/v1).
    expect((await call(server.url, 'GET', '/.well-known/openid-configuration')).body.issuer).toBe(server.issuer);
  });

  it('sends the browser to the hosted consent page, or to SITE_URL + the authorization path when set', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT] });
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const location = new URL(started.location!);
    expect(location.origin + location.pathname).toBe(server.issuer + HOSTED_CONSENT_PATH);
    expect(authorizationIdOf(started.location)).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const withPath = await startOAuthServer({ OAUTH_SERVER_AUTHORIZATION_PATH: '/oauth/consent-screen', SITE_URL: 'https://app.example.com/' });
    try {
      const c = await registerClient(withPath, { redirect_uris: [REDIRECT] });
      const s = await authorize(withPath, { client_id: c.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      expect(s.location).toMatch(/^https:\/\/app\.example\.com\/oauth\/consent-screen\?authorization_id=[A-Za-z0-9_-]{32}$/);
    } finally {
      await withPath.close();
    }
  });

  it('uses OAUTH_SERVER_DEFAULT_SCOPE when the request names none, and refuses unknown scopes', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT] });
    const user = await signedInUser(server);
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const details = await call(server.issuer, 'GET', `/oauth/authorizations/${authorizationIdOf(started.location)}`, { token: user.access_token });
    expect(details.body.scope).toBe('openid email');
    const unknown = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, scope: 'openid admin', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    expect(new URL(unknown.location!).searchParams.get('error_description')).toBe('unsupported scope: admin');
  });

  it('dynamic registration: a public client gets no secret; the limit is shared; the registration is usable at once', async () => {
    const first = await call(server.issuer, 'POST', '/oauth/clients/register', { body: { client_name: 'MCP client', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ client_type: 'public', token_endpoint_auth_method: 'none', registration_type: 'dynamic' });
    expect(first.body).not.toHaveProperty('client_secret');
    const confidential = await call(server.issuer, 'POST', '/oauth/clients/register', { body: { redirect_uris: [REDIRECT] } });
    expect(confidential.body.client_secret).toEqual(expect.any(String));
    const bad = await call(server.issuer, 'POST', '/oauth/clients/register', { body: { redirect_uris: ['http://evil.example.com/cb'] } });
    expect(bad.status).toBe(400);
    // RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER=3 per hour: the fourth is refused.
    const over = await call(server.issuer, 'POST', '/oauth/clients/register', { body: { redirect_uris: [REDIRECT] } });
    expect(over.status).toBe(429);
    expect(over.body.error_code).toBe('over_request_rate_limit');

    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: first.body.client_id, redirectUri: 'http://127.0.0.1:33418/callback', user });
    const tokens = await tokenRequest(server, { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: first.body.client_id });
    expect(tokens.status).toBe(200);
  });

  it('userinfo gives what the scopes allow; a first-party token gets sub only', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
    const user = await signedInUser(server);
    await call(server.issuer, 'PUT', '/user', { token: user.access_token, body: { data: { name: 'Ada', avatar_url: 'https://img.example.com/a.png', username: 'ada' } } });
    const exchange = async (scope: string) => {
      const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, scope });
      return (await tokenRequest(server, { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: client.client_id, client_secret: client.client_secret })).body;
    };
    const onlyOpenid = await exchange('openid');
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: onlyOpenid.access_token })).body).toEqual({ sub: user.user.id });
    expect(claimsOf(onlyOpenid.id_token)).not.toHaveProperty('email');

    const profile = await exchange('openid email profile');
    const info = (await call(server.issuer, 'GET', '/oauth/userinfo', { token: profile.access_token })).body;
    expect(info).toMatchObject({ sub: user.user.id, email: user.email, email_verified: true, name: 'Ada', picture: 'https://img.example.com/a.png', preferred_username: 'ada' });
    expect(claimsOf(profile.id_token)).toMatchObject({ email: user.email, name: 'Ada', aud: client.client_id, iss: server.issuer });

    const noOpenid = await exchange('email');
    expect(noOpenid).not.toHaveProperty('id_token');
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: user.access_token })).body).toEqual({ sub: user.user.id });
  });

  it('token answers are not cached, and a client may use only the grants it registered', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_post' });
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user });
    const res = await tokenRequest(server, { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: client.client_id, client_secret: client.client_secret });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const refresh = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
    expect(refresh.body.error).toBe('unauthorized_client');
    const other = await tokenRequest(server, { grant_type: 'password', client_id: client.client_id, client_secret: client.client_secret });
    expect(other.body.error).toBe('unsupported_grant_type');
  });

  it('revocation (RFC 7009) ends the session for its own client only; introspection (RFC 7662) needs a confidential client', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT] });
    const other = await registerClient(server, { redirect_uris: [REDIRECT] });
    const publicOne = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, scope: 'openid email' });
    const tokens = (await tokenRequest(server, { grant_type: 'authorization_code', code, code_verifier: challenge.verifier }, basicAuth(client.client_id, client.client_secret))).body;
    const form = (body: Record<string, string>) => ({ rawBody: new URLSearchParams(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const introspect = (token: string, as = client) =>
      call(server.issuer, 'POST', '/oauth/introspect', { ...form({ token }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...basicAuth(as.client_id, as.client_secret) } });

    const active = await introspect(tokens.access_token);
    expect(active.body).toMatchObject({ active: true, client_id: client.client_id, scope: 'openid email', sub: user.user.id, token_type: 'Bearer' });
    expect((await introspect(tokens.refresh_token)).body).toMatchObject({ active: true, token_type: 'refresh_token', client_id: client.client_id });
    // Another client learns nothing about this client's refresh token.
    expect((await introspect(tokens.refresh_token, other)).body).toEqual({ active: false });
    expect((await introspect('not-a-token')).body).toEqual({ active: false });
    const byPublic = await call(server.issuer, 'POST', '/oauth/introspect', form({ token: tokens.access_token, client_id: publicOne.client_id }));
    expect(byPublic.status).toBe(401);

    // Revoking by another client does nothing (and says nothing).
    const foreign = await call(server.issuer, 'POST', '/oauth/revoke', { ...form({ token: tokens.refresh_token }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...basicAuth(other.client_id, other.client_secret) } });
    expect(foreign.status).toBe(200);
    expect((await introspect(tokens.access_token)).body.active).toBe(true);
    const revoked = await call(server.issuer, 'POST', '/oauth/revoke', { ...form({ token: tokens.refresh_token, token_type_hint: 'refresh_token' }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...basicAuth(client.client_id, client.client_secret) } });
    expect(revoked.status).toBe(200);
    expect((await introspect(tokens.access_token)).body).toEqual({ active: false });
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: tokens.access_token })).status).toBe(403);
  });

  it('deleting a client ends its sessions and consents at once', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user });
    const tokens = (await tokenRequest(server, { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: client.client_id, client_secret: client.client_secret })).body;
    expect((await call(server.issuer, 'DELETE', `/admin/oauth/clients/${client.client_id}`, { token: await server.adminToken() })).status).toBe(204);
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: tokens.access_token })).status).toBe(403);
    expect((await call(server.issuer, 'GET', '/user/oauth/grants', { token: user.access_token })).body).toEqual([]);
  });

  it('keeps nothing in memory: each step of one flow on another instance', async () => {
    const second = await secondInstance(server);
    const secondBase = `${second.url}/auth/v1`;
    try {
      const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
      const user = await signedInUser(server);
      const challenge = pkce();
      const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge.challenge, code_challenge_method: 'S256', state: 'two' });
      const id = authorizationIdOf(started.location);
      expect((await call(secondBase, 'GET', `/oauth/authorizations/${id}`, { token: user.access_token })).status).toBe(200);
      const consent = await call(server.issuer, 'POST', `/oauth/authorizations/${id}/consent`, { token: user.access_token, body: { action: 'approve' } });
      const code = new URL(consent.body.redirect_url).searchParams.get('code')!;
      const form = { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: client.client_id, client_secret: client.client_secret };
      const tokens = await call(secondBase, 'POST', '/oauth/token', { rawBody: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(tokens.status).toBe(200);
      // The replay, on the first instance, is caught there.
      expect((await tokenRequest(server, form)).body.error).toBe('invalid_grant');
      expect((await call(secondBase, 'GET', '/oauth/userinfo', { token: tokens.body.access_token })).status).toBe(403);
    } finally {
      await second.close();
    }
  });
});

it('works on the embedded PGlite database of the quick start too: a whole flow, a refresh and a replay', async () => {
  const server = await startOAuthServer({}, 'pglite');
  try {
    const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, nonce: 'n-1' });
    const form = { grant_type: 'authorization_code', code, code_verifier: challenge.verifier, client_id: client.client_id, client_secret: client.client_secret };
    const tokens = await tokenRequest(server, form);
    expect(tokens.status).toBe(200);
    expect(claimsOf(tokens.body.id_token)).toMatchObject({ nonce: 'n-1', aud: client.client_id });
    const refreshed = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
    expect(refreshed.status).toBe(200);
    expect((await tokenRequest(server, form)).body.error).toBe('invalid_grant');
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: refreshed.body.access_token })).status).toBe(403);
  } finally {
    await server.close();
  }
});
