import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createJwtService, requireUser, type JwtService, type RequireUserOptions } from '../src';
import { NOW, NOW_S, forge, privateJwk } from './keys';

const SECRET = 'shared-secret-for-internal-apps-0123456789';
const claims = { sub: 'user-1', aud: 'authenticated', role: 'authenticated', email: 'a@example.com' };
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An internal app protecting GET /me with requireUser. */
async function startApp(options: RequireUserOptions): Promise<string> {
  const app = express();
  app.get('/me', requireUser({ clock: () => NOW, ...options }), (req, res) => {
    res.json({ sub: req.auth?.claims.sub, tokenLength: req.auth?.token.length });
  });
  return listen(createServer(app));
}

async function call(base: string, authorization?: string) {
  const res = await fetch(`${base}/me`, { headers: authorization ? { authorization } : {} });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json()) as Record<string, unknown> };
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('requireUser with the shared secret', () => {
  let base: string;
  let service: JwtService;

  beforeAll(async () => {
    service = await createJwtService({ secret: SECRET, issuer: 'https://auth.test' });
    base = await startApp({ secret: SECRET, audience: 'authenticated', issuer: 'https://auth.test' });
  });

  it('puts the verified claims and token on the request', async () => {
    const token = await service.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect(await call(base, `Bearer ${token}`)).toEqual({ status: 200, challenge: null, body: { sub: 'user-1', tokenLength: token.length } });
    expect((await call(base, `bearer  ${token}`)).status).toBe(200);
  });

  it('answers 401 invalid_token with a Bearer challenge otherwise', async () => {
    const missing = await call(base);
    expect(missing).toEqual({ status: 401, challenge: 'Bearer', body: { error: 'invalid_token', error_description: 'missing bearer token' } });
    expect((await call(base, 'Basic dXNlcjpwYXNz')).status).toBe(401);
    expect((await call(base, 'Bearer')).status).toBe(401);

    const expired = await service.sign(claims, { expiresInSeconds: 60, now: new Date(NOW.getTime() - 120_000) });
    const res = await call(base, `Bearer ${expired}`);
    expect(res).toEqual({
      status: 401,
      challenge: 'Bearer error="invalid_token", error_description="token has expired"',
      body: { error: 'invalid_token', error_description: 'token has expired' },
    });

    const otherAudience = await service.sign({ ...claims, aud: 'other' }, { expiresInSeconds: 60, now: NOW });
    expect((await call(base, `Bearer ${otherAudience}`)).body.error_description).toBe('claim aud is invalid');
    const otherIssuer = await service.sign({ ...claims, iss: 'https://evil.test' }, { expiresInSeconds: 60, now: NOW });
    expect((await call(base, `Bearer ${otherIssuer}`)).status).toBe(401);
    const unsigned = forge({ alg: 'none' }, { ...claims, iss: 'https://auth.test', exp: NOW_S + 60 });
    expect((await call(base, `Bearer ${unsigned}`)).status).toBe(401);
    const wrongSecret = forge({ alg: 'HS256' }, { ...claims, iss: 'https://auth.test', exp: NOW_S + 60 }, 'guess');
    expect((await call(base, `Bearer ${wrongSecret}`)).body.error_description).toBe('signature is invalid');
    expect((await call(base, 'Bearer not-a-jwt')).body.error_description).toBe('token is malformed');

    const rsa = await createJwtService({ keys: [await privateJwk('RS256', 'r')] });
    expect((await call(base, `Bearer ${await rsa.sign(claims, { expiresInSeconds: 60, now: NOW })}`)).status).toBe(401);
  });
});

describe('requireUser in an app with its own error shape', () => {
  it('hands refusals to onFailure, and verifyToken checks a token from elsewhere the same way', async () => {
    const service = await createJwtService({ secret: SECRET });
    const guard = requireUser({
      secret: SECRET,
      clock: () => NOW,
      onFailure: (failure, _req, res) => {
        res.status(failure.status).json({ statusCode: failure.status, message: `refused: ${failure.description}` });
      },
    });
    const app = express();
    app.get('/me', guard, (req, res) => res.json({ sub: req.auth?.claims.sub }));
    const base = await listen(createServer(app));
    const good = await service.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await call(base, `Bearer ${good}`)).body).toEqual({ sub: 'user-1' });
    expect(await call(base)).toEqual({ status: 401, challenge: null, body: { statusCode: 401, message: 'refused: missing bearer token' } });

    expect(await guard.verifyToken(good)).toEqual({ claims: expect.objectContaining({ sub: 'user-1' }) });
    const expired = await service.sign(claims, { expiresInSeconds: 60, now: new Date(NOW.getTime() - 120_000) });
    expect(await guard.verifyToken(expired)).toEqual({ failure: { status: 401, error: 'invalid_token', description: 'token has expired' } });
  });
});

describe('requireUser options', () => {
  it('refuses to start without a usable key source', () => {
    expect(() => requireUser({ secret: '' })).toThrow('pass { secret } or { jwksUrl }');
    expect(() => requireUser({ jwksUrl: 'ftp://auth.test/jwks.json' })).toThrow('jwksUrl must be http(s)');
    expect(() => requireUser({ jwksUrl: 'not a url' })).toThrow();
  });
});

describe('requireUser with a JWKS URL', () => {
  let keys: Record<string, unknown>[];
  let published: { keys: Record<string, unknown>[] };
  let jwksRequests = 0;
  let jwksUrl: string;

  beforeAll(async () => {
    keys = [await privateJwk('RS256', 'rsa'), await privateJwk('ES256', 'ec', { sign: false }), await privateJwk('EdDSA', 'ed', { sign: false })];
    published = (await createJwtService({ keys })).jwks();
    const jwksServer = createServer((_req, res) => {
      jwksRequests++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(published));
    });
    jwksUrl = `${await listen(jwksServer)}/.well-known/jwks.json`;
  });

  async function signer(kid: string): Promise<JwtService> {
    return createJwtService({ keys: keys.map((k) => ({ ...k, key_ops: k.kid === kid ? ['sign'] : ['verify'] })) });
  }

  it('verifies every published algorithm and fetches the JWKS once', async () => {
    const base = await startApp({ jwksUrl, audience: 'authenticated' });
    const before = jwksRequests;
    for (const kid of ['rsa', 'ec', 'ed', 'rsa']) {
      const token = await (await signer(kid)).sign(claims, { expiresInSeconds: 60, now: NOW });
      expect((await call(base, `Bearer ${token}`)).body).toEqual({ sub: 'user-1', tokenLength: token.length });
    }
    expect(jwksRequests - before).toBe(1);
  });

  it('rejects alg confusion, unknown kids and tampering', async () => {
    const base = await startApp({ jwksUrl, jwksCooldownMs: 60_000 });
    const payload = { ...claims, role: 'service_role', exp: NOW_S + 60 };
    const confused = forge({ alg: 'HS256', kid: 'rsa' }, payload, JSON.stringify(published.keys[0]));
    expect((await call(base, `Bearer ${confused}`)).status).toBe(401);
    expect((await call(base, `Bearer ${forge({ alg: 'none', kid: 'rsa' }, payload)}`)).status).toBe(401);

    const stranger = await createJwtService({ keys: [await privateJwk('RS256', 'stranger', { fresh: true })] });
    const unknown = await call(base, `Bearer ${await stranger.sign(claims, { expiresInSeconds: 60, now: NOW })}`);
    expect(unknown).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'no key matches the token' } });

    const token = await (await signer('ec')).sign(claims, { expiresInSeconds: 60, now: NOW });
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
    expect((await call(base, `Bearer ${forged}`)).body.error_description).toBe('signature is invalid');
  });

  it('picks up a rotated-in key by refetching the JWKS', async () => {
    const base = await startApp({ jwksUrl, jwksCooldownMs: 0 });
    const first = await (await signer('rsa')).sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await call(base, `Bearer ${first}`)).status).toBe(200);

    const newKey = await privateJwk('ES256', 'next', { fresh: true });
    keys = [...keys.map((k) => ({ ...k, key_ops: ['verify'] })), newKey];
    published = (await createJwtService({ keys })).jwks();
    const rotated = await (await createJwtService({ keys })).sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await call(base, `Bearer ${rotated}`)).status).toBe(200);
  });

  it('answers 503 when the JWKS cannot be fetched', async () => {
    const down = createServer();
    const url = await listen(down);
    await new Promise((resolve) => down.close(resolve));
    const base = await startApp({ jwksUrl: `${url}/jwks.json` });
    const token = await (await signer('rsa')).sign(claims, { expiresInSeconds: 60, now: NOW });
    expect(await call(base, `Bearer ${token}`)).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });

    const broken = createServer((_req, res) => res.writeHead(500).end('oops'));
    const brokenBase = await startApp({ jwksUrl: `${await listen(broken)}/jwks.json` });
    expect((await call(brokenBase, `Bearer ${token}`)).status).toBe(503);
  });
});
