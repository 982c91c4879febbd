// DB_NAMESPACE: the auth tables are auth.<ns>_users, ...; every query (including the compiled-once
// hot-path reads and the refresh CTE) must follow the prefix.
import { sql } from 'kysely';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { refresh, signIn, signUp } from './helpers/users';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', DB_NAMESPACE: 'kz', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

it('runs the account and session flows on prefixed tables', async () => {
  const account = await signUp(server.url);
  const session = await signIn(server.url, account.email, account.password);
  const rotated = await refresh(server.url, session.refresh_token);
  expect(rotated.status).toBe(200);
  const parallel = await Promise.all([1, 2, 3, 4, 5].map(() => refresh(server.url, rotated.body.refresh_token)));
  expect(parallel.every((r) => r.status === 200)).toBe(true);
  const user = await call(server.url, 'PUT', '/user', { token: rotated.body.access_token, body: { data: { ns: true }, password: 'password-456' } });
  expect(user.status).toBe(200);
  expect((await call(server.url, 'GET', '/user', { token: rotated.body.access_token })).body.user_metadata).toEqual({ ns: true });
  expect((await call(server.url, 'POST', '/signup', { body: {} })).status).toBe(200);
  expect((await call(server.url, 'POST', '/logout', { token: rotated.body.access_token })).status).toBe(204);

  const { rows } = await sql<{ n: string }>`select count(*) as n from auth.kz_users`.execute(server.deps.db);
  expect(Number(rows[0]?.n)).toBe(2);
  const audit = await sql<{ n: string }>`select count(*) as n from auth.kz_audit_log_entries`.execute(server.deps.db);
  expect(Number(audit.rows[0]?.n)).toBeGreaterThan(5);
});
