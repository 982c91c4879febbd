// Issue 11, from @supabase/auth-js's own integration suite: admin JWTs without exp (GoTrue accepts
// them), GoTrue's codes for features that are off, reauthentication without email or phone, and
// deep bodies refused at the edge.
import { createHmac } from 'node:crypto';
import { call } from '../helpers/http';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server';
import { signUp } from '../helpers/users';

let server: TestServer;
let strict: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true' } });
  strict = await startTestServer({ env: { JWT_REQUIRE_EXP: 'true' } });
});
afterAll(async () => {
  await server?.close();
  await strict?.close();
});

/** An HS256 token with exactly these claims (no iat, no exp), as service keys are often minted. */
function hs256(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', TEST_JWT_SECRET).update(unsigned).digest('base64url')}`;
}

describe('admin tokens without exp', () => {
  const token = hs256({ role: 'service_role' });

  it('are accepted when the signature verifies, as GoTrue does', async () => {
    const res = await call(server.url, 'GET', '/admin/users', { token });
    expect(res.status).toBe(200);
  });

  it('are refused with AUTH_JWT_REQUIRE_EXP=true', async () => {
    const res = await call(strict.url, 'GET', '/admin/users', { token });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('bad_jwt');
  });

  it('a wrong signature is still refused', async () => {
    const forged = token.slice(0, -2) + (token.endsWith('A') ? 'B' : 'A') + token.slice(-1);
    expect((await call(server.url, 'GET', '/admin/users', { token: forged })).status).toBe(403);
  });
});

describe('features that are off answer GoTrue codes', () => {
  it('grant_type=web3 → 422 web3_provider_disabled', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=web3', { body: { chain: 'ethereum', message: 'm', signature: 's' }, newShape: true });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 'web3_provider_disabled', message: 'Web3 provider is disabled' });
  });

  it('grant_type=id_token with a disabled provider → 400 provider_disabled', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=id_token', { body: { provider: 'google', id_token: 'x.y.z' }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'provider_disabled', message: 'Provider (issuer "https://accounts.google.com") is not enabled' });
  });

  it('identity linking routes → 404 manual_linking_disabled; POST /sso → 404 saml_provider_disabled', async () => {
    const account = await signUp(server.url);
    const authorize = await call(server.url, 'GET', '/user/identities/authorize?provider=github', { token: account.access_token, newShape: true });
    expect(authorize.status).toBe(404);
    expect(authorize.body).toEqual({ code: 'manual_linking_disabled', message: 'Manual linking is disabled' });
    const unlink = await call(server.url, 'DELETE', `/user/identities/${(account.user.identities as Array<{ identity_id: string }>)[0]!.identity_id}`, { token: account.access_token });
    expect(unlink.status).toBe(404);
    expect(unlink.body.error_code).toBe('manual_linking_disabled');
    const sso = await call(server.url, 'POST', '/sso', { body: { domain: 'example.com' }, newShape: true });
    expect(sso.status).toBe(404);
    expect(sso.body).toEqual({ code: 'saml_provider_disabled', message: 'SAML 2.0 is disabled' });
  });
});

it('GET /reauthenticate for a user with neither email nor phone → 400 validation_failed', async () => {
  const anon = await call(server.url, 'POST', '/signup', { body: {} });
  expect(anon.status).toBe(200);
  const res = await call(server.url, 'GET', '/reauthenticate', { token: anon.body.access_token, newShape: true });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ code: 'validation_failed', message: 'Reauthentication requires the user to have an email or a phone number' });
});

describe('bodies', () => {
  it('a body nested 10,000 deep in data → 400 validation_failed, not a 500', async () => {
    const account = await signUp(server.url);
    const deep = `{"data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const res = await call(server.url, 'PUT', '/user', { token: account.access_token, rawBody: deep, headers: { 'content-type': 'application/json' }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'validation_failed', message: 'The request body is nested too deeply (at most 64 levels)' });
    const fine = `{"data":${'{"a":'.repeat(20)}1${'}'.repeat(20)}}`;
    expect((await call(server.url, 'PUT', '/user', { token: account.access_token, rawBody: fine, headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });

  it('a 2 MB body to an admin route: the client reads its 413 and the connection is closed', async () => {
    const token = hs256({ role: 'service_role' });
    for (let i = 0; i < 5; i++) {
      const res = await call(server.url, 'POST', '/admin/users', { token, rawBody: `{"email":"${'a'.repeat(2 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
      expect(res.body.error_code).toBe('request_entity_too_large');
    }
  });
});
