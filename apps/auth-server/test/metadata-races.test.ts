// Concurrent metadata updates of different keys must all survive: every writer (PUT /user, PUT
// /admin/users/<id>, POST /invite and POST /admin/generate_link on an existing user) merges in SQL
// instead of reading, merging in JavaScript and writing the whole object back.
import { call } from './helpers/http';
import { startEmailTestServer, type EmailTestServer } from './helpers/email-server';
import { signUp, uniqueEmail } from './helpers/users';

jest.setTimeout(60_000);

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { MAILER_AUTOCONFIRM: 'true', RATE_LIMIT_EMAIL_SENT: '100000', SMTP_MAX_FREQUENCY: '0' } });
});
afterAll(async () => server?.close());

const ROUNDS = 8;
const keys = (prefix: string) => Array.from({ length: ROUNDS }, (_, i) => `${prefix}${i}`);

async function adminUser(id: string) {
  const res = await call(server.url, 'GET', `/admin/users/${id}`, { token: await server.adminToken() });
  expect(res.status).toBe(200);
  return res.body as { user_metadata: Record<string, unknown>; app_metadata: Record<string, unknown> };
}

describe('metadata updates race without losing keys', () => {
  it('PUT /user and PUT /admin/users/<id> (user_metadata and app_metadata) at once', async () => {
    const session = await signUp(server.url);
    const admin = await server.adminToken();
    const id = session.user.id;
    const results = await Promise.all([
      ...keys('u').map((k) => call(server.url, 'PUT', '/user', { token: session.access_token, body: { data: { [k]: k } } })),
      ...keys('a').map((k) => call(server.url, 'PUT', `/admin/users/${id}`, { token: admin, body: { user_metadata: { [k]: k } } })),
      ...keys('p').map((k) => call(server.url, 'PUT', `/admin/users/${id}`, { token: admin, body: { app_metadata: { [k]: k } } })),
    ]);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const user = await adminUser(id);
    for (const k of [...keys('u'), ...keys('a')]) expect(user.user_metadata[k]).toBe(k);
    for (const k of keys('p')) expect(user.app_metadata[k]).toBe(k);
    expect(user.app_metadata.provider).toBe('email');
  });

  it('POST /invite, POST /admin/generate_link and PUT /admin/users/<id> on one unconfirmed user at once', async () => {
    const admin = await server.adminToken();
    const email = uniqueEmail('race');
    const created = await call(server.url, 'POST', '/admin/users', { token: admin, body: { email, user_metadata: { start: true } } });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    const results = await Promise.all([
      ...keys('i').map((k) => call(server.url, 'POST', '/invite', { token: admin, body: { email, data: { [k]: k } } })),
      ...keys('g').map((k) => call(server.url, 'POST', '/admin/generate_link', { token: admin, body: { type: 'invite', email, data: { [k]: k } } })),
      ...keys('a').map((k) => call(server.url, 'PUT', `/admin/users/${id}`, { token: admin, body: { user_metadata: { [k]: k } } })),
    ]);
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const user = await adminUser(id);
    expect(user.user_metadata.start).toBe(true);
    // Every writer that answered 200 must have its key kept.
    const sent = [...keys('i'), ...keys('g'), ...keys('a')];
    const kept = sent.filter((_, n) => results[n]!.status === 200);
    expect(kept.length).toBeGreaterThan(ROUNDS);
    for (const k of kept) expect(user.user_metadata[k]).toBe(k);
  });

  it('a null value deletes the key in SQL, leaving the others', async () => {
    const session = await signUp(server.url);
    const admin = await server.adminToken();
    await call(server.url, 'PUT', '/user', { token: session.access_token, body: { data: { keep: 1, drop: 2 } } });
    const res = await call(server.url, 'PUT', `/admin/users/${session.user.id}`, { token: admin, body: { user_metadata: { drop: null, added: 3 } } });
    expect(res.status).toBe(200);
    expect(res.body.user_metadata).toEqual({ keep: 1, added: 3 });
  });
});
