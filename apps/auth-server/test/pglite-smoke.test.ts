// The same flows on embedded PGlite (the zero-setup default): sign-up, sign-in, refresh (with the
// row lock), user update, logout.
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { refresh, signIn, signUp } from './helpers/users';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ kind: 'pglite', env: { MAILER_AUTOCONFIRM: 'true' } });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

it('runs the account and session flows', async () => {
  const account = await signUp(server.url);
  const session = await signIn(server.url, account.email, account.password);
  const rotated = await refresh(server.url, session.refresh_token);
  expect(rotated.status).toBe(200);
  const parallel = await Promise.all([1, 2, 3].map(() => refresh(server.url, rotated.body.refresh_token)));
  expect(parallel.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(new Set(parallel.map((r) => r.body.refresh_token)).size).toBe(1);
  const updated = await call(server.url, 'PUT', '/user', { token: rotated.body.access_token, body: { data: { on: 'pglite' } } });
  expect(updated.body.user_metadata).toEqual({ on: 'pglite' });
  expect((await call(server.url, 'POST', '/logout', { token: rotated.body.access_token })).status).toBe(204);
  expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(403);
});
