// The hosted pages' server side without a browser (issue 40): the server runs without a built bundle (the pages
// say so), and the cookie-session endpoints answer bad input with GoTrue's 4xx shapes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { errorRenderer } from '../src/http/errors';
import { hostedPages } from '../src/routes/hosted-pages';
import { HOSTED_SESSION_COOKIE } from '../src/routes/hosted-session';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { signUp } from './helpers/users';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

it('answers 404 saying the pages were not built when the bundle is missing', async () => {
  const app = express();
  app.use(hostedPages(server.deps, mkdtempSync(path.join(tmpdir(), 'kz-no-pages-'))));
  app.use(errorRenderer);
  const listener = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    for (const at of ['/hosted/sign-in', '/oauth/consent', '/']) {
      const res = await call(url, 'GET', at);
      expect([res.status, res.body.msg]).toEqual([404, 'The hosted pages were not built (run pnpm build)']);
    }
  } finally {
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  }
});

it('refuses bad input to the cookie session with 4xx, sets the HttpOnly cookie, and keeps only an allowed redirect_to', async () => {
  expect((await call(server.url, 'POST', '/hosted/session', { body: {} })).status).toBe(400);
  expect((await call(server.url, 'POST', '/hosted/session', { body: { refresh_token: 'not-a-token' } })).status).toBe(401);
  expect((await call(server.url, 'POST', '/hosted/session/refresh')).body.error_code).toBe('no_authorization');

  const user = await signUp(server.url);
  const res = await fetch(`${server.url}/auth/v1/hosted/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: user.refresh_token, redirect_to: '//evil.example/x' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { continue_to: string | null; access_token: string };
  expect(body.continue_to).toBeNull();
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(new RegExp(`^${HOSTED_SESSION_COOKIE}=`));
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Lax/);
  expect(cookie).toMatch(/Path=\/auth\/v1\/hosted\/session/);
  const other = await signUp(server.url);
  const own = await call(server.url, 'POST', '/hosted/session', { body: { refresh_token: other.refresh_token, redirect_to: '/auth/v1/hosted/consent?authorization_id=x' } });
  expect(own.body.continue_to).toBe('http://localhost:9999/auth/v1/hosted/consent?authorization_id=x');
});
