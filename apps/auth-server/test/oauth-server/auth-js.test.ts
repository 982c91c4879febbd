// @supabase/auth-js 2.109's own OAuth server calls, unchanged, end to end: admin.oauth.* (client CRUD and a new
// secret) and oauth.* of a signed-in user (authorization details, approve, deny, grants, revoking a grant).
import { AuthClient, GoTrueAdminApi } from '@supabase/auth-js';
import { call } from '../helpers/http';
import { authorize, authorizationIdOf, pkce, startOAuthServer, tokenRequest, type OAuthTestServer } from './helpers';

jest.setTimeout(60_000);

let server: OAuthTestServer;
let admin: GoTrueAdminApi;

beforeAll(async () => {
  server = await startOAuthServer();
  admin = new GoTrueAdminApi({ url: server.issuer, headers: { Authorization: `Bearer ${await server.adminToken()}` } });
});
afterAll(async () => server?.close());

async function signedInClient(): Promise<{ auth: InstanceType<typeof AuthClient>; userId: string; email: string }> {
  const auth = new AuthClient({ url: server.issuer, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
  const email = `authjs-oauth-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { data, error } = await auth.signUp({ email, password: 'password-123' });
  expect(error).toBeNull();
  return { auth, userId: data.user!.id, email };
}

async function startAuthorization(clientId: string, redirectUri: string, scope = 'openid email') {
  const { challenge, verifier } = pkce();
  const started = await authorize(server, {
    client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope, state: 'xyz', code_challenge: challenge, code_challenge_method: 'S256',
  });
  expect(started.status).toBe(302);
  return { id: authorizationIdOf(started.location), verifier };
}

describe('admin.oauth', () => {
  it('createClient, getClient, listClients, updateClient, regenerateClientSecret, deleteClient', async () => {
    const created = await admin.oauth.createClient({ client_name: 'Dashboard', redirect_uris: ['https://app.example.com/cb'], scope: 'openid', response_types: ['code'] });
    expect(created.error).toBeNull();
    const client = created.data!;
    expect(client).toMatchObject({
      client_name: 'Dashboard', client_type: 'confidential', token_endpoint_auth_method: 'client_secret_basic', registration_type: 'manual',
      redirect_uris: ['https://app.example.com/cb'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
    });
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const fetched = await admin.oauth.getClient(client.client_id);
    expect(fetched.data).toMatchObject({ client_id: client.client_id, client_name: 'Dashboard' });
    expect(fetched.data).not.toHaveProperty('client_secret');

    const listed = await admin.oauth.listClients({ page: 1, perPage: 50 });
    expect(listed.error).toBeNull();
    expect(listed.data.clients.map((c) => c.client_id)).toContain(client.client_id);

    const updated = await admin.oauth.updateClient(client.client_id, { client_name: 'Renamed', redirect_uris: ['https://app.example.com/cb2'], logo_uri: 'https://app.example.com/logo.png' });
    expect(updated.data).toMatchObject({ client_name: 'Renamed', redirect_uris: ['https://app.example.com/cb2'], logo_uri: 'https://app.example.com/logo.png' });

    const renewed = await admin.oauth.regenerateClientSecret(client.client_id);
    expect(renewed.data?.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(renewed.data?.client_secret).not.toBe(client.client_secret);

    expect((await admin.oauth.deleteClient(client.client_id)).error).toBeNull();
    const gone = await admin.oauth.getClient(client.client_id);
    expect(gone.error?.status).toBe(404);
    expect(gone.error?.code).toBe('oauth_client_not_found');
  });

  it('a public client gets no secret and cannot have one made', async () => {
    const created = await admin.oauth.createClient({ client_name: 'CLI', redirect_uris: ['http://127.0.0.1:8976/callback'], token_endpoint_auth_method: 'none' });
    expect(created.data).toMatchObject({ client_type: 'public', token_endpoint_auth_method: 'none' });
    expect(created.data).not.toHaveProperty('client_secret');
    const renewed = await admin.oauth.regenerateClientSecret(created.data!.client_id);
    expect(renewed.error?.status).toBe(400);
  });

  it('bad registrations are 400 validation_failed, not stored', async () => {
    const bad = await admin.oauth.createClient({ client_name: 'x', redirect_uris: ['http://evil.example.com/cb'] });
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const js = await admin.oauth.createClient({ client_name: 'x', redirect_uris: ['javascript:alert(1)'] });
    expect(js.error?.status).toBe(400);
    const none = await admin.oauth.createClient({ client_name: 'x', redirect_uris: [] });
    expect(none.error?.status).toBe(400);
  });
});

describe('oauth (the signed-in user)', () => {
  it('getAuthorizationDetails → approveAuthorization → the code works; next time the consent is remembered', async () => {
    const { data: client } = await admin.oauth.createClient({ client_name: 'Notes', redirect_uris: ['https://notes.example.com/cb'], token_endpoint_auth_method: 'client_secret_post' });
    const { auth, userId, email } = await signedInClient();
    const first = await startAuthorization(client!.client_id, 'https://notes.example.com/cb');
    const details = await auth.oauth.getAuthorizationDetails(first.id);
    expect(details.error).toBeNull();
    expect(details.data).toMatchObject({
      authorization_id: first.id, redirect_uri: 'https://notes.example.com/cb', scope: 'openid email',
      client: { id: client!.client_id, name: 'Notes' }, user: { id: userId, email },
    });
    const approved = await auth.oauth.approveAuthorization(first.id, { skipBrowserRedirect: true });
    expect(approved.error).toBeNull();
    const redirect = new URL(approved.data!.redirect_url);
    expect(redirect.origin + redirect.pathname).toBe('https://notes.example.com/cb');
    expect(redirect.searchParams.get('state')).toBe('xyz');
    const exchanged = await tokenRequest(server, {
      grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, redirect_uri: 'https://notes.example.com/cb',
      code_verifier: first.verifier, client_id: client!.client_id, client_secret: client!.client_secret!,
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ token_type: 'bearer', scope: 'openid email' });
    expect(exchanged.body.id_token).toEqual(expect.any(String));

    // The consent covers the scopes: the details answer is the redirect itself, no question asked.
    const second = await startAuthorization(client!.client_id, 'https://notes.example.com/cb', 'email');
    const again = await auth.oauth.getAuthorizationDetails(second.id);
    expect(again.data).toEqual({ redirect_url: expect.stringContaining('https://notes.example.com/cb?code=') });
    // More scopes than were granted: asked again.
    const third = await startAuthorization(client!.client_id, 'https://notes.example.com/cb', 'openid email phone');
    expect((await auth.oauth.getAuthorizationDetails(third.id)).data).toMatchObject({ authorization_id: third.id, scope: 'openid email phone' });
  });

  it('denyAuthorization sends the client access_denied with its state', async () => {
    const { data: client } = await admin.oauth.createClient({ client_name: 'Deny', redirect_uris: ['https://deny.example.com/cb'] });
    const { auth } = await signedInClient();
    const started = await startAuthorization(client!.client_id, 'https://deny.example.com/cb');
    expect((await auth.oauth.getAuthorizationDetails(started.id)).error).toBeNull();
    const denied = await auth.oauth.denyAuthorization(started.id, { skipBrowserRedirect: true });
    const url = new URL(denied.data!.redirect_url);
    expect(Object.fromEntries(url.searchParams)).toEqual({ error: 'access_denied', error_description: 'User denied the request', state: 'xyz' });
    // Decided once: a second decision is refused.
    expect((await auth.oauth.approveAuthorization(started.id, { skipBrowserRedirect: true })).error?.status).toBe(400);
  });

  it('listGrants and revokeGrant: revoking ends the tokens the client holds at once', async () => {
    const { data: client } = await admin.oauth.createClient({ client_name: 'Grants', redirect_uris: ['https://grants.example.com/cb'], token_endpoint_auth_method: 'client_secret_post' });
    const { auth } = await signedInClient();
    const started = await startAuthorization(client!.client_id, 'https://grants.example.com/cb');
    await auth.oauth.getAuthorizationDetails(started.id);
    const approved = await auth.oauth.approveAuthorization(started.id, { skipBrowserRedirect: true });
    const code = new URL(approved.data!.redirect_url).searchParams.get('code')!;
    const tokens = (await tokenRequest(server, {
      grant_type: 'authorization_code', code, code_verifier: started.verifier, client_id: client!.client_id, client_secret: client!.client_secret!,
    })).body;
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: tokens.access_token })).status).toBe(200);

    const grants = await auth.oauth.listGrants();
    expect(grants.error).toBeNull();
    expect(grants.data).toEqual([{ client: { id: client!.client_id, name: 'Grants' }, scopes: ['openid', 'email'], granted_at: expect.any(String) }]);

    expect((await auth.oauth.revokeGrant({ clientId: client!.client_id })).error).toBeNull();
    expect((await auth.oauth.listGrants()).data).toEqual([]);
    // The access token names a session that no longer exists; the refresh token is gone with it.
    expect((await call(server.issuer, 'GET', '/oauth/userinfo', { token: tokens.access_token })).status).toBe(403);
    const refreshed = await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client!.client_id, client_secret: client!.client_secret! });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    // Nothing left to revoke.
    expect((await auth.oauth.revokeGrant({ clientId: client!.client_id })).error?.status).toBe(404);
  });
});
