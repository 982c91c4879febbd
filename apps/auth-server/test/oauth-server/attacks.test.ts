// What an attacker tries against the authorization server, each over real HTTP on PostgreSQL: redirect URIs that
// are not exactly registered, codes of another client, missing or plain PKCE, replayed codes, consent to another
// user's request, requests past their lifetime, open redirects through state, and bad client credentials.
import { call } from '../helpers/http';
import { claimsOf } from '../helpers/users';
import {
  approveFlow, authorize, authorizationIdOf, basicAuth, pkce, registerClient, signedInUser, startOAuthServer, tokenRequest, type OAuthTestServer,
} from './helpers';

jest.setTimeout(60_000);

let server: OAuthTestServer;
beforeAll(async () => {
  server = await startOAuthServer({ OAUTH_SERVER_AUTHORIZATION_TTL: '5m' });
});
afterAll(async () => server?.close());

const REDIRECT = 'https://app.example.com/cb';

async function confidential() {
  return registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
}

async function publicClient() {
  return registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
}

function codeParams(client: { client_id: string; client_secret?: string }, code: string, verifier: string, extra: Record<string, string> = {}) {
  return {
    grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}), ...extra,
  };
}

describe('redirect URIs', () => {
  it.each([
    ['unregistered', 'https://evil.example.com/cb'],
    ['a longer path', 'https://app.example.com/cb/evil'],
    ['a prefix of the path', 'https://app.example.com/c'],
    ['dot segments', 'https://app.example.com/cb/../evil'],
    ['an added query', 'https://app.example.com/cb?next=https://evil.example.com'],
    ['a host with the registered one as prefix', 'https://app.example.com.evil.example.com/cb'],
    ['another case', 'https://APP.example.com/cb'],
    ['a trailing slash', 'https://app.example.com/cb/'],
    ['credentials in front', 'https://app.example.com@evil.example.com/cb'],
  ])('%s is refused with 400 and no redirect', async (_name, redirectUri) => {
    const client = await confidential();
    const started = await authorize(server, {
      client_id: client.client_id, redirect_uri: redirectUri, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256',
    });
    expect(started.status).toBe(400);
    expect(started.location).toBeNull();
    expect(started.body).toMatchObject({ error_code: 'validation_failed', msg: 'invalid redirect_uri' });
  });

  it('an unknown or malformed client is refused without a redirect', async () => {
    for (const clientId of ['6c0d2c8e-3f0e-4b8e-9a1f-2b3c4d5e6f70', 'not-a-uuid']) {
      const started = await authorize(server, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      expect(started.status).toBe(400);
      expect(started.location).toBeNull();
      expect(started.body.error_code).toBe('oauth_client_not_found');
    }
  });

  it('state cannot turn a redirect into an open one: it comes back as one encoded parameter of the registered URI', async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const state = 'x&redirect_uri=https://evil.example.com/#https://evil.example.com/?a=b';
    const { redirectUrl } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, state });
    expect(redirectUrl.origin + redirectUrl.pathname).toBe(REDIRECT);
    expect(redirectUrl.hash).toBe('');
    expect([...redirectUrl.searchParams.keys()].sort()).toEqual(['code', 'state']);
    expect(redirectUrl.searchParams.get('state')).toBe(state);
    // The same for an error sent back to the client.
    const failed = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, state, code_challenge_method: 'S256' });
    const location = new URL(failed.location!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('PKCE', () => {
  it('a public client without PKCE gets invalid_request at its redirect URI, and no authorization is stored', async () => {
    const client = await publicClient();
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', state: 's1' });
    expect(started.status).toBe(302);
    const location = new URL(started.location!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'invalid_request', error_description: 'PKCE flow requires both code_challenge and code_challenge_method', state: 's1',
    });
    const stored = await server.deps.db.selectFrom('auth.oauth_authorizations').select('id').where('client_id', '=', client.client_id).execute();
    expect(stored).toEqual([]);
  });

  it('plain PKCE is refused: S256 only', async () => {
    const client = await publicClient();
    const verifier = pkce().verifier;
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: verifier, code_challenge_method: 'plain' });
    expect(new URL(started.location!).searchParams.get('error_description')).toBe("code_challenge_method must be 'S256'");
  });

  it('a public client exchanges its code with the verifier alone; a wrong or missing verifier is invalid_grant', async () => {
    const client = await publicClient();
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user });
    for (const verifier of ['', pkce().verifier]) {
      const wrong = await tokenRequest(server, codeParams(client, code, verifier));
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
    }
    const good = await tokenRequest(server, codeParams(client, code, challenge.verifier));
    expect(good.status).toBe(200);
    expect(claimsOf(good.body.access_token).client_id).toBe(client.client_id);
  });
});

describe('codes', () => {
  it("a code is refused to another client, even with the right verifier and that client's own valid credentials", async () => {
    const victim = await confidential();
    const attacker = await confidential();
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: victim.client_id, redirectUri: REDIRECT, user });
    const stolen = await tokenRequest(server, codeParams(attacker, code, challenge.verifier));
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual({ error: 'invalid_grant', error_description: 'Authorization code was not issued for this client' });
    // Naming the victim without its secret is not client authentication.
    const impersonated = await tokenRequest(server, codeParams({ client_id: victim.client_id }, code, challenge.verifier));
    expect(impersonated.status).toBe(401);
    expect(impersonated.body.error).toBe('invalid_client');
    expect((await tokenRequest(server, codeParams(victim, code, challenge.verifier))).status).toBe(200);
  });

  it('a code is bound to the redirect URI of its request', async () => {
    const client = await registerClient(server, { redirect_uris: [REDIRECT, 'https://app.example.com/other'], token_endpoint_auth_method: 'client_secret_post' });
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user });
    const wrong = await tokenRequest(server, codeParams(client, code, challenge.verifier, { redirect_uri: 'https://app.example.com/other' }));
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid redirect_uri' });
  });

  it('a replayed code is refused and ends the session the first exchange issued', async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user });
    const first = await tokenRequest(server, codeParams(client, code, challenge.verifier));
    expect(first.status).toBe(200);
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: first.body.access_token })).status).toBe(200);

    const replay = await tokenRequest(server, codeParams(client, code, challenge.verifier));
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'Authorization code has already been used' });
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: first.body.access_token })).status).toBe(403);
    const refreshed = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('a made-up code is invalid_grant', async () => {
    const client = await confidential();
    const res = await tokenRequest(server, codeParams(client, 'made-up-code', pkce().verifier));
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
  });
});

describe('consent', () => {
  it("nobody decides on another user's authorization: 404 whether the owner opened it or not", async () => {
    const client = await confidential();
    const owner = await signedInUser(server);
    const intruder = await signedInUser(server);
    const open = async () => {
      const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      return authorizationIdOf(started.location);
    };
    // Not yet opened by anyone: consent without looking first is refused too.
    const fresh = await open();
    expect((await call(server.issuer, 'POST', `/oauth/authorizations/${fresh}/consent`, { token: intruder.access_token, body: { action: 'approve' } })).status).toBe(404);

    const id = await open();
    expect((await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: owner.access_token })).status).toBe(200);
    const peek = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: intruder.access_token });
    expect(peek.status).toBe(404);
    expect(peek.body.error_code).toBe('oauth_authorization_not_found');
    const approve = await call(server.issuer, 'POST', `/oauth/authorizations/${id}/consent`, { token: intruder.access_token, body: { action: 'approve' } });
    expect(approve.status).toBe(404);
    // The owner can still decide.
    expect((await call(server.issuer, 'POST', `/oauth/authorizations/${id}/consent`, { token: owner.access_token, body: { action: 'approve' } })).status).toBe(200);
  });

  it('the consent API refuses a browser request from a foreign origin', async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const id = authorizationIdOf(started.location);
    const foreign = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: user.access_token, headers: { origin: 'https://evil.example.com' } });
    expect(foreign.status).toBe(400);
    const own = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: user.access_token, headers: { origin: new URL(server.issuer).origin } });
    expect(own.status).toBe(200);
  });

  it('an authorization past its TTL is gone (moved clock), and so is its code', async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const started = await authorize(server, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const id = authorizationIdOf(started.location);
    server.clock.advance(5 * 60 + 1);
    const late = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: (await signedInUser(server)).access_token });
    expect(late.status).toBe(404);
    const row = await server.deps.db.selectFrom('auth.oauth_authorizations').select('status').where('authorization_id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');

    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user: await signedInUser(server) });
    server.clock.advance(5 * 60 + 1);
    const exchanged = await tokenRequest(server, codeParams(client, code, challenge.verifier));
    expect(exchanged.body).toEqual({ error: 'invalid_grant', error_description: 'Authorization code has expired' });
    void user;
  });
});

describe('client authentication', () => {
  it('a wrong secret, a missing one, or another method than the registered one is 401 invalid_client', async () => {
    const post = await confidential();
    const basic = await registerClient(server, { redirect_uris: [REDIRECT] });
    expect(basic.token_endpoint_auth_method).toBe('client_secret_basic');
    const refreshOf = { grant_type: 'refresh_token', refresh_token: 'abcdefghijklmnop' };
    const cases = [
      { form: { ...refreshOf, client_id: post.client_id, client_secret: 'wrong' }, headers: {} },
      { form: { ...refreshOf, client_id: post.client_id }, headers: {} },
      { form: refreshOf, headers: basicAuth(post.client_id, post.client_secret) },
      { form: { ...refreshOf, client_id: basic.client_id, client_secret: basic.client_secret }, headers: {} },
      { form: refreshOf, headers: basicAuth(basic.client_id, 'wrong') },
      { form: refreshOf, headers: {} },
    ];
    for (const { form, headers } of cases) {
      const res = await tokenRequest(server, form, headers);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    // The right way gets past authentication (and fails on the made-up token).
    const right = await tokenRequest(server, refreshOf, basicAuth(basic.client_id, basic.client_secret));
    expect(right.body.error).toBe('invalid_grant');
  });

  it('secrets are stored hashed', async () => {
    const client = await confidential();
    const row = await server.deps.db.selectFrom('auth.oauth_clients').selectAll().where('id', '=', client.client_id).executeTakeFirstOrThrow();
    expect(row.client_secret_hash).not.toContain(client.client_secret);
    expect(JSON.stringify(row)).not.toContain(client.client_secret);
  });

  it("a client cannot refresh another client's tokens, nor a first-party session's, nor the reverse", async () => {
    const a = await confidential();
    const b = await confidential();
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: a.client_id, redirectUri: REDIRECT, user });
    const tokens = (await tokenRequest(server, codeParams(a, code, challenge.verifier))).body;
    const byB = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: b.client_id, client_secret: b.client_secret });
    expect(byB.body.error).toBe('invalid_client');
    const firstParty = await call(server.issuer, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: tokens.refresh_token } });
    expect(firstParty.status).toBe(400);
    expect(firstParty.body.error).toBe('invalid_client');
    const userSession = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: user.refresh_token, client_id: a.client_id, client_secret: a.client_secret });
    expect(userSession.body.error).toBe('invalid_client');
    // None of that used the token up: its own client still refreshes it.
    const own = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: a.client_id, client_secret: a.client_secret });
    expect(own.status).toBe(200);
  });
});

describe("a client's tokens", () => {
  it("are not the user's account: no account change, no consent for other clients, no grants; userinfo only", async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, scope: 'openid email' });
    const token = (await tokenRequest(server, codeParams(client, code, challenge.verifier))).body.access_token as string;

    // Another client's pending request, opened by the user: the first client must not be able to approve it.
    const other = await confidential();
    const started = await authorize(server, { client_id: other.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const otherId = authorizationIdOf(started.location);
    expect((await call(server.issuer, 'GET', `/oauth/authorizations/${otherId}`, { token: user.access_token })).status).toBe(200);

    for (const [method, path, body] of [
      ['GET', '/user', undefined],
      ['PUT', '/user', { password: 'taken-over-123' }],
      ['PUT', '/user', { email: 'attacker@example.com' }],
      ['POST', `/oauth/authorizations/${otherId}/consent`, { action: 'approve' }],
      ['GET', `/oauth/authorizations/${otherId}`, undefined],
      ['GET', '/user/oauth/grants', undefined],
      ['DELETE', `/user/oauth/grants?client_id=${other.client_id}`, undefined],
      ['POST', '/factors', { factor_type: 'totp' }],
      ['POST', '/logout', undefined],
    ] as const) {
      const res = await call(server.issuer, method, path, { token, body });
      expect([method, path, res.status, res.body.error_code]).toEqual([method, path, 403, 'bad_jwt']);
    }
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token })).status).toBe(200);
    // The user's own token still does all of that.
    expect((await call(server.issuer, 'GET', '/user', { token: user.access_token })).status).toBe(200);
  });
});

describe("an administrator's consent", () => {
  it("gives a client the scopes it asked for, never the admin API (the user's role in the token notwithstanding)", async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    const promoted = await call(server.issuer, 'PUT', `/admin/users/${claimsOf(user.access_token).sub as string}`, {
      token: await server.adminToken(), body: { role: 'supabase_admin' },
    });
    expect(promoted.status).toBe(200);
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, scope: 'openid' });
    const token = (await tokenRequest(server, codeParams(client, code, challenge.verifier))).body.access_token as string;
    expect(claimsOf(token).role).toBe('supabase_admin');

    for (const [method, path, body] of [
      ['GET', '/admin/users', undefined],
      ['POST', '/admin/users', { email: 'planted@example.com', password: 'planted-123456' }],
      ['GET', '/admin/oauth/clients', undefined],
      ['GET', '/admin/audit', undefined],
    ] as const) {
      const res = await call(server.issuer, method, path, { token, body });
      expect([method, path, res.status, res.body.error_code]).toEqual([method, path, 403, 'bad_jwt']);
    }
  });
});

describe('an ID token', () => {
  it('says who signed in to the client; it is no access token, neither here nor at the admin API', async () => {
    const client = await confidential();
    const user = await signedInUser(server);
    await call(server.issuer, 'PUT', `/admin/users/${claimsOf(user.access_token).sub as string}`, { token: await server.adminToken(), body: { role: 'supabase_admin' } });
    const { code, pkce: challenge } = await approveFlow(server, { clientId: client.client_id, redirectUri: REDIRECT, user, scope: 'openid email' });
    const idToken = (await tokenRequest(server, codeParams(client, code, challenge.verifier))).body.id_token as string;
    expect(claimsOf(idToken).aud).toBe(client.client_id);
    for (const [method, path, body] of [
      ['GET', '/user', undefined],
      ['PUT', '/user', { password: 'taken-over-123' }],
      ['GET', '/oauth/userinfo', undefined],
      ['POST', '/factors', { factor_type: 'totp' }],
      ['GET', '/admin/users', undefined],
    ] as const) {
      const res = await call(server.issuer, method, path, { token: idToken, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    const signIn = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: user.email, password: user.password } });
    expect(signIn.status).toBe(200);
  });
});
