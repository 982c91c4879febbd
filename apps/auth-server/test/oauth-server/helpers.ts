// A test server with the OAuth server on: its own URL as issuer (so relying parties can discover it), an ES256
// signing key, and shortcuts for the steps a browser and a consent page take.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server';
import { call, type Json } from '../helpers/http';
import { signUp, type Session } from '../helpers/users';

export interface OAuthTestServer extends TestServer {
  /** The issuer and base of every endpoint: <server>/auth/v1. */
  issuer: string;
  adminToken(): Promise<string>;
}

export function signingKeys(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return JSON.stringify([{ ...jwk, kid: `test-${randomBytes(4).toString('hex')}`, alg: 'ES256', use: 'sig', key_ops: ['sign', 'verify'] }]);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function startOAuthServer(env: Record<string, string> = {}, kind: 'postgres' | 'pglite' = 'postgres'): Promise<OAuthTestServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}/auth/v1`;
  const server = await startTestServer({
    port,
    kind,
    env: {
      API_EXTERNAL_URL: issuer,
      JWT_ISSUER: issuer,
      JWT_KEYS: signingKeys(),
      MAILER_AUTOCONFIRM: 'true',
      OAUTH_SERVER_ENABLED: 'true',
      OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: 'true',
      RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: '100000',
      ...env,
    },
  });
  return {
    ...server,
    issuer,
    adminToken: () => server.deps.jwt.sign({ role: 'service_role' }, { expiresInSeconds: 3600 }),
  };
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(server: OAuthTestServer, body: Record<string, unknown>): Promise<Json> {
  const res = await call(server.issuer, 'POST', '/admin/oauth/clients', { token: await server.adminToken(), body: { client_name: 'Test app', ...body } });
  if (res.status !== 201) throw new Error(`client registration failed: ${res.status} ${res.text}`);
  return res.body;
}

/** GET /oauth/authorize as a browser would (redirects not followed): the status and the Location. */
export async function authorize(server: OAuthTestServer, params: Record<string, string>): Promise<{ status: number; location: string | null; body: Json }> {
  const res = await fetch(`${server.issuer}/oauth/authorize?${new URLSearchParams(params).toString()}`, { redirect: 'manual' });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, location: res.headers.get('location'), body };
}

export function authorizationIdOf(location: string | null): string {
  const id = location ? new URL(location).searchParams.get('authorization_id') : null;
  if (!id) throw new Error(`no authorization_id in ${location}`);
  return id;
}

export async function signedInUser(server: OAuthTestServer): Promise<Session & { email: string; password: string }> {
  return signUp(server.url);
}

/** The whole browser side: authorize, look at the request as the user, approve; the redirect URL with the code. */
export async function approveFlow(
  server: OAuthTestServer,
  input: { clientId: string; redirectUri: string; user: Session; scope?: string; state?: string; nonce?: string; pkce?: Pkce },
): Promise<{ redirectUrl: URL; code: string; pkce: Pkce }> {
  const challenge = input.pkce ?? pkce();
  const started = await authorize(server, {
    client_id: input.clientId, redirect_uri: input.redirectUri, response_type: 'code', scope: input.scope ?? 'openid email',
    state: input.state ?? 'state-1', code_challenge: challenge.challenge, code_challenge_method: 'S256',
    ...(input.nonce ? { nonce: input.nonce } : {}),
  });
  if (started.status !== 302) throw new Error(`authorize: ${started.status} ${JSON.stringify(started.body)}`);
  const id = authorizationIdOf(started.location);
  const details = await call(server.issuer, 'GET', `/oauth/authorizations/${id}`, { token: input.user.access_token });
  if (details.status !== 200) throw new Error(`details: ${details.status} ${details.text}`);
  let redirect = details.body.redirect_url as string | undefined;
  if (!redirect) {
    const consent = await call(server.issuer, 'POST', `/oauth/authorizations/${id}/consent`, { token: input.user.access_token, body: { action: 'approve' } });
    if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${consent.text}`);
    redirect = consent.body.redirect_url as string;
  }
  const redirectUrl = new URL(redirect);
  return { redirectUrl, code: redirectUrl.searchParams.get('code') ?? '', pkce: challenge };
}

/** POST /oauth/token with a form body (what OAuth clients send). */
export async function tokenRequest(server: OAuthTestServer, form: Record<string, string>, headers: Record<string, string> = {}) {
  return call(server.issuer, 'POST', '/oauth/token', {
    rawBody: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export function basicAuth(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` };
}
