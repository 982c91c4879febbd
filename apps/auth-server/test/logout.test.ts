// POST /logout?scope=global|local|others → 204, sessions deleted (refresh tokens cascade).
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { refresh, signIn, signUp } from './helpers/users';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function threeSessions() {
  const a = await signUp(server.url);
  const b = await signIn(server.url, a.email, a.password);
  const c = await signIn(server.url, a.email, a.password);
  return [a, b, c] as const;
}

const alive = async (token: string) => (await call(server.url, 'GET', '/user', { token })).status === 200;

it('global (the default) ends every session of the user', async () => {
  const [a, b, c] = await threeSessions();
  const res = await call(server.url, 'POST', '/auth/v1/logout', { token: b.access_token });
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
  expect([await alive(a.access_token), await alive(b.access_token), await alive(c.access_token)]).toEqual([false, false, false]);
  const refreshed = await refresh(server.url, a.refresh_token);
  expect(refreshed.status).toBe(400);
  const audit = (await server.deps.db.selectFrom('auth.audit_log_entries').select('payload').execute())
    .map((r) => r.payload as Record<string, unknown>)
    .filter((p) => p.actor_id === a.user.id && p.action === 'logout');
  expect(audit).toHaveLength(1);
});

it('local ends only this session', async () => {
  const [a, b, c] = await threeSessions();
  expect((await call(server.url, 'POST', '/logout?scope=local', { token: b.access_token })).status).toBe(204);
  expect([await alive(a.access_token), await alive(b.access_token), await alive(c.access_token)]).toEqual([true, false, true]);
});

it('others ends every session but this one', async () => {
  const [a, b, c] = await threeSessions();
  expect((await call(server.url, 'POST', '/logout?scope=others', { token: b.access_token })).status).toBe(204);
  expect([await alive(a.access_token), await alive(b.access_token), await alive(c.access_token)]).toEqual([false, true, false]);
});

it('an unknown scope is 400 validation_failed; no token is 401', async () => {
  const a = await signUp(server.url);
  const bad = await call(server.url, 'POST', '/logout?scope=everything', { token: a.access_token });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ error_code: 'validation_failed' });
  expect((await call(server.url, 'POST', '/logout')).status).toBe(401);
});

it('logging out twice: the second call is 403 session_not_found', async () => {
  const a = await signUp(server.url);
  expect((await call(server.url, 'POST', '/logout', { token: a.access_token })).status).toBe(204);
  const again = await call(server.url, 'POST', '/logout', { token: a.access_token });
  expect(again.status).toBe(403);
  expect(again.body).toMatchObject({ error_code: 'session_not_found' });
});
