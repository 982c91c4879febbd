// requireAdmin, exercised on a tiny app that uses the real guard and error renderer.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { OAuthError } from '../src/errors';
import { requireAdmin } from '../src/http/auth';
import { errorRenderer } from '../src/http/errors';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { signUp } from './helpers/users';

let server: TestServer;
let adminApp: Server;
let adminUrl: string;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
  const app = express();
  app.get('/admin/ping', requireAdmin(server.deps), (req, res) => {
    res.json({ role: req.caller?.claims.role, sub: req.caller?.claims.sub });
  });
  app.get('/oauth-error', () => {
    throw new OAuthError('invalid_request', 'missing id_token');
  });
  app.use(errorRenderer);
  adminApp = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  adminUrl = `http://127.0.0.1:${(adminApp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => adminApp?.close(resolve));
  await server?.close();
});

const sign = (claims: Record<string, unknown>) => server.deps.jwt.sign(claims, { expiresInSeconds: 60, now: server.clock.now() });

it('accepts a service_role token whose sub is not a user', async () => {
  const res = await call(adminUrl, 'GET', '/admin/ping', { token: await sign({ role: 'service_role', sub: '1234567890' }) });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ role: 'service_role', sub: '1234567890' });
  expect((await call(adminUrl, 'GET', '/admin/ping', { token: await sign({ role: 'supabase_admin' }) })).status).toBe(200);
});

it('no token is 401 no_authorization; a user token is 403 not_admin', async () => {
  const none = await call(adminUrl, 'GET', '/admin/ping');
  expect(none.status).toBe(401);
  expect(none.body).toMatchObject({ error_code: 'no_authorization' });
  const account = await signUp(server.url);
  const user = await call(adminUrl, 'GET', '/admin/ping', { token: account.access_token, newShape: true });
  expect(user.status).toBe(403);
  expect(user.body).toEqual({ code: 'not_admin', message: 'User not allowed' });
});

it('an expired admin token is 403 bad_jwt', async () => {
  const token = await sign({ role: 'service_role' });
  server.clock.advance(61);
  const res = await call(adminUrl, 'GET', '/admin/ping', { token });
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ error_code: 'bad_jwt' });
});

it('OAuth-shaped errors are {error, error_description} whatever the API version', async () => {
  for (const newShape of [false, true]) {
    const res = await call(adminUrl, 'GET', '/oauth-error', { newShape });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'missing id_token' });
  }
});
