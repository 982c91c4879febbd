// GET /admin/users cursor mode with the admin console's filters (issue 43): confirmed, banned, anonymous, has_mfa
// and provider, and the search box matching an exact id or phone besides an e-mail substring. Filters need cursor
// paging (page/per_page keeps GoTrue's exact behaviour) and a bad value is a 400, never a 500.
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminCall } from './admin-helpers';

jest.setTimeout(60_000);

let server: TestServer;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer({ env: { EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true', MAILER_AUTOCONFIRM: 'false' } });
  const create = async (name: string, body: Record<string, unknown>) => {
    const res = await adminCall(server, 'POST', '/admin/users', { body });
    expect(res.status).toBe(200);
    ids[name] = res.body.id;
  };
  await create('confirmed', { email: 'confirmed@filters.test', password: 'password-123', email_confirm: true });
  await create('unconfirmed', { email: 'unconfirmed@filters.test', password: 'password-123' });
  await create('banned', { email: 'banned@filters.test', email_confirm: true, ban_duration: '24h' });
  await create('phone', { phone: '15550001234', phone_confirm: true });
  const anonymous = await call(server.url, 'POST', '/signup', { body: {} });
  expect(anonymous.status).toBe(200);
  ids.anonymous = anonymous.body.user.id;
  const session = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email: 'confirmed@filters.test', password: 'password-123' } })).body;
  const factor = await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp' } });
  expect(factor.status).toBe(200);
  // A verified factor, as the filter means: mark it so without an authenticator.
  await server.deps.db.updateTable('auth.mfa_factors').set({ status: 'verified' }).where('id', '=', factor.body.id).execute();
});
afterAll(async () => {
  await server?.close();
});

async function listed(query: string): Promise<string[]> {
  const res = await adminCall(server, 'GET', `/admin/users?limit=50&${query}`);
  expect(res.status).toBe(200);
  return (res.body.users as Array<{ id: string }>).map((u) => u.id).sort();
}

const sorted = (...names: string[]) => names.map((n) => ids[n]!).sort();

it('filters by confirmed, banned, anonymous, provider and has_mfa, alone and together', async () => {
  expect(await listed('confirmed=false')).toEqual(sorted('unconfirmed', 'anonymous'));
  expect(await listed('banned=true')).toEqual(sorted('banned'));
  expect(await listed('anonymous=true')).toEqual(sorted('anonymous'));
  expect(await listed('provider=phone')).toEqual(sorted('phone'));
  expect(await listed('has_mfa=true')).toEqual(sorted('confirmed'));
  expect(await listed('provider=email&banned=false&confirmed=true')).toEqual(sorted('confirmed'));
  // A ban that has run out is not a ban.
  server.clock.advance(25 * 3600);
  expect(await listed('banned=true')).toEqual([]);
});

it('finds a user by exact id or phone number, besides an e-mail substring', async () => {
  expect(await listed(`filter=${ids.banned}`)).toEqual(sorted('banned'));
  expect(await listed('filter=%2B15550001234')).toEqual(sorted('phone'));
  expect(await listed('filter=unconfirmed%40')).toEqual(sorted('unconfirmed'));
});

it('refuses a bad filter value, and filters without cursor paging, with a 400', async () => {
  for (const query of ['limit=5&banned=yes', 'limit=5&provider=%3Cx%3E', 'page=1&confirmed=true', 'confirmed=true&per_page=5']) {
    const res = await adminCall(server, 'GET', `/admin/users?${query}`);
    expect({ query, status: res.status, code: res.body.error_code }).toEqual({ query, status: 400, code: 'validation_failed' });
  }
  // confirmed=true alone selects cursor mode's filters but needs limit or cursor.
  expect((await adminCall(server, 'GET', '/admin/users?confirmed=true')).status).toBe(400);
});
