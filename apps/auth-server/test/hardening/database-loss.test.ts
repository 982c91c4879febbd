// Issue 11: while PostgreSQL is unreachable, routes answer 503 database_unavailable (retryable,
// auth-js retries 503s), /health says so, /health/live stays 200, and everything recovers on its
// own once the database is back. The database is taken away with a TCP proxy in front of it.
import { connect, type AuthDatabase } from '@keyzone/db';
import { startTcpProxy, type TcpProxy } from '@keyzone/db/testing';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { signUp } from '../helpers/users';

let server: TestServer;
let proxy: TcpProxy;

beforeAll(async () => {
  const target = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  server = await startTestServer({
    env: { MAILER_AUTOCONFIRM: 'true' },
    configure: (deps) => ({ ...deps, db: connect<AuthDatabase>(proxy.urlFor(deps.config.db.url), { connectTimeoutMs: 2000 }) }),
  });
});
afterAll(async () => {
  await proxy?.resume();
  await server?.deps.db.destroy();
  await server?.close();
  await proxy?.close();
});

it('answers 503 while the database is gone and recovers by itself', async () => {
  const account = await signUp(server.url);
  expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(200);

  await proxy.pause();
  const user = await call(server.url, 'GET', '/user', { token: account.access_token });
  expect(user.status).toBe(503);
  expect(user.body).toMatchObject({ code: 503, error_code: 'database_unavailable' });
  expect(user.headers.get('retry-after')).toBe('5');
  const token = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: account.password }, newShape: true });
  expect(token.status).toBe(503);
  expect(token.body).toEqual({ code: 'database_unavailable', message: 'The database is unavailable, please retry shortly' });
  const refresh = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: account.refresh_token } });
  expect(refresh.status).toBe(503);
  const health = await call(server.url, 'GET', '/health');
  expect(health.status).toBe(503);
  expect(health.body).toMatchObject({ error_code: 'database_unavailable', msg: 'The database is unreachable' });
  expect((await call(server.url, 'GET', '/health/live')).status).toBe(200);

  await proxy.resume();
  expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(200);
  expect((await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: account.password } })).status).toBe(200);
});
