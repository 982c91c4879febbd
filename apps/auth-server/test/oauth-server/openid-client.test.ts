// A certified OpenID Connect relying-party library (openid-client v6, in its own process since it is ESM only)
// against Keyzone over real HTTP: discovery, the code flow with PKCE, the ID token checked against the JWKS
// (signature, issuer, audience, nonce), userinfo and a refresh; with client_secret_post and client_secret_basic.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { call, type Json } from '../helpers/http';
import { claimsOf } from '../helpers/users';
import { authorizationIdOf, registerClient, signedInUser, startOAuthServer, type OAuthTestServer } from './helpers';
import { accessTokenHash } from '../../src/services/oauth-server/id-token';

jest.setTimeout(120_000);

let server: OAuthTestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(async () => server?.close());

const REDIRECT = 'https://rp.example.com/callback';

/** Runs relying-party.mjs; `browser` plays the user agent with the authorization URL and returns the callback URL. */
async function runRelyingParty(input: Record<string, unknown>, browser: (authorizationUrl: string) => Promise<string>): Promise<Json> {
  const child = spawn(process.execPath, [path.join(__dirname, 'relying-party.mjs'), JSON.stringify(input)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  try {
    const first = JSON.parse((await lines.next()).value as string);
    if (first.error) return first;
    child.stdin!.write(`${await browser(first.authorizationUrl)}\n`);
    return { ...JSON.parse((await lines.next()).value as string), started: first };
  } finally {
    child.kill();
  }
}

async function consentAs(accessToken: string, authorizationUrl: string): Promise<string> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const id = authorizationIdOf(res.headers.get('location'));
  const details = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: accessToken });
  expect(details.status).toBe(200);
  const consent = await call(server.issuer, 'POST', `/oauth/authorizations/${id}/consent`, { token: accessToken, body: { action: 'approve' } });
  expect(consent.status).toBe(200);
  return consent.body.redirect_url;
}

it.each(['client_secret_post', 'client_secret_basic'] as const)('discovery, code flow with PKCE, ID token, userinfo and refresh (%s)', async (method) => {
  const user = await signedInUser(server);
  const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
  const result = await runRelyingParty(
    { issuer: server.issuer, clientId: client.client_id, clientSecret: client.client_secret, auth: method === 'client_secret_basic' ? 'basic' : 'post', redirectUri: REDIRECT, scope: 'openid email profile' },
    (url) => consentAs(user.access_token, url),
  );
  expect(result).not.toHaveProperty('error');
  expect(result.metadata.issuer).toBe(server.issuer);
  expect(result.metadata.registration_endpoint).toBe(`${server.issuer}/oauth/clients/register`);

  const claims = result.idTokenClaims;
  expect(claims).toMatchObject({ iss: server.issuer, aud: client.client_id, sub: user.user.id, nonce: result.started.nonce, email: user.email, email_verified: true });
  expect(typeof claims.auth_time).toBe('number');
  expect(claims.at_hash).toBe(accessTokenHash(result.accessToken, 'ES256'));
  // Checked again here, independently: the signature verifies with the published JWKS.
  const jwks = (await call(server.issuer, 'GET', '/.well-known/jwks.json')).body;
  const verified = await jwtVerify(result.idToken, createLocalJWKSet(jwks), { issuer: server.issuer, audience: client.client_id, currentDate: server.clock.now() });
  expect(verified.protectedHeader.alg).toBe('ES256');

  expect(claimsOf(result.accessToken)).toMatchObject({ client_id: client.client_id, scope: 'openid email profile', sub: user.user.id });
  expect(result.scope).toBe('openid email profile');
  expect(result.userinfo).toMatchObject({ sub: user.user.id, email: user.email, email_verified: true, name: user.email });
  expect(result.refreshed.refreshToken).not.toBe(result.refreshToken);
  expect(claimsOf(result.refreshed.accessToken)).toMatchObject({ client_id: client.client_id, scope: 'openid email profile' });
  expect(result.userinfoAfterRefresh.sub).toBe(user.user.id);
});

it('the relying party refuses an ID token whose nonce is not its own (a server that ignored the nonce would be caught)', async () => {
  const user = await signedInUser(server);
  const client = await registerClient(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
  const result = await runRelyingParty(
    { issuer: server.issuer, clientId: client.client_id, clientSecret: client.client_secret, auth: 'post', redirectUri: REDIRECT, scope: 'openid' },
    (url) => {
      const swapped = new URL(url);
      swapped.searchParams.set('nonce', 'someone-elses-nonce');
      return consentAs(user.access_token, swapped.toString());
    },
  );
  expect(result.error).toMatch(/unexpected JWT claim value/);
  expect(JSON.stringify(result.detail)).toMatch(/nonce/);
});
