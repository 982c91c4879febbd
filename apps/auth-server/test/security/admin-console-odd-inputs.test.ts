// The admin console's new and changed admin routes (issue 43) fed what an attacker or a broken client would send,
// over real HTTP against a real database: odd query and body types, unstorable text, foreign ids. Each answer is a
// 4xx in GoTrue's shape, never a 500, and a cursor is only a position: the filters of the request that uses it apply,
// whatever request minted it. A signed-in administrator without their second factor (AUTH_CONSOLE_REQUIRE_AAL2) and a
// plain user reach none of the new routes.
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminCall } from '../admin/admin-helpers';
import { call } from '../helpers/http';

jest.setTimeout(120_000);

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32', JWT_ADMIN_ROLES: 'service_role,console_admin' } });
});
afterAll(async () => {
  await server?.close();
});

function expectClientError(what: string, res: { status: number; body: { code?: unknown; msg?: unknown } }): void {
  expect({ what, status: res.status >= 400 && res.status < 500 ? 'a 4xx' : res.status }).toEqual({ what, status: 'a 4xx' });
  expect(typeof res.body?.msg).toBe('string');
}

test('GET /admin/audit in cursor mode refuses odd query values with a 4xx', async () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  for (const query of [
    'limit=5&actor_id=%00', 'limit=5&action=login&action=logout', 'limit=5&user_id=a&user_id=b', 'limit=5&actor_id=a&actor_id=b',
    'limit=5&action=LOGIN', 'limit=9999999999', 'limit=1e3', `limit=5&cursor=${b64({ created_at: 1, id: randomUUID() })}`,
    `limit=5&cursor=${b64({ created_at: '2026-01-01T00:00:00Z', id: `${randomUUID()}' OR 1=1 --` })}`,
    `limit=5&cursor=${b64({ created_at: "2026-01-01T00:00:00Z'::timestamptz OR true --", id: randomUUID() })}`,
  ]) {
    expectClientError(query, await adminCall(server, 'GET', `/admin/audit?${query}`));
  }
});

test('a cursor minted under one filter, used under another, yields only what the second filter allows', async () => {
  const a = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'filter-a@odd.test', password: 'password-123' } })).body;
  const b = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'filter-b@odd.test', password: 'password-123' } })).body;
  for (let i = 0; i < 3; i += 1) {
    server.clock.advance(1);
    expect((await adminCall(server, 'PUT', `/admin/users/${a.id}`, { body: { user_metadata: { i } } })).status).toBe(200);
    expect((await adminCall(server, 'PUT', `/admin/users/${b.id}`, { body: { user_metadata: { i } } })).status).toBe(200);
  }
  const first = await adminCall(server, 'GET', `/admin/audit?limit=1&user_id=${a.id}`);
  expect(first.status).toBe(200);
  const cursor = first.body.pagination.next_cursor as string;
  expect(cursor).toEqual(expect.any(String));
  const other = await adminCall(server, 'GET', `/admin/audit?limit=100&user_id=${b.id}&cursor=${cursor}`);
  expect(other.status).toBe(200);
  expect(other.body.entries.length).toBeGreaterThan(0);
  for (const entry of other.body.entries) {
    expect([entry.payload.actor_id, entry.payload.traits?.user_id]).toContain(b.id);
  }
  const unfiltered = await adminCall(server, 'GET', `/admin/audit?limit=100&action=login&cursor=${cursor}`);
  expect(unfiltered.status).toBe(200);
  expect(unfiltered.body.entries.every((e: { payload: { action: string } }) => e.payload.action === 'login')).toBe(true);
});

test('DELETE of a passkey and the provider edits refuse odd ids and bodies with a 4xx', async () => {
  const user = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'odd-ids@odd.test', password: 'password-123' } })).body;
  for (const path of [
    `/admin/users/${user.id}/passkeys/not-a-uuid`, `/admin/users/${user.id}/passkeys/${randomUUID()}`,
    `/admin/users/not-a-uuid/passkeys/${randomUUID()}`, `/admin/users/${randomUUID()}/passkeys/%00`,
  ]) {
    expectClientError(`DELETE ${path}`, await adminCall(server, 'DELETE', path));
  }
  const created = await adminCall(server, 'POST', '/admin/custom-providers', { body: {
    provider_type: 'oauth2', identifier: 'custom:odd', name: 'Odd', client_id: 'c', client_secret: 's',
    authorization_url: 'https://127.0.0.1/authorize', token_url: 'https://127.0.0.1/token', userinfo_url: 'https://127.0.0.1/userinfo',
  } });
  expect(created.status).toBe(201);
  for (const body of [
    { scopes: 'openid' }, { authorization_params: [] }, { acceptable_client_ids: 'x' }, { token_url: 5 }, { token_url: 'https://[::1' },
    { userinfo_url: 'javascript:alert(1)' }, { authorization_url: 'https://127.0.0.1/\u0000' }, { name: { toString: 'x' } },
    { attribute_mapping: 'email' }, { enabled: 'yes' }, [], 'text', null,
  ]) {
    expectClientError(`PUT custom ${JSON.stringify(body)}`, await adminCall(server, 'PUT', '/admin/custom-providers/custom:odd', { body }));
  }
  for (const identifier of ['custom:%00', 'custom:nope', '%E0%A4%A', 'custom:' + 'x'.repeat(5000)]) {
    expectClientError(`PUT custom ${identifier.slice(0, 40)}`, await adminCall(server, 'PUT', `/admin/custom-providers/${identifier}`, { body: { name: 'x' } }));
    expectClientError(`DELETE custom ${identifier.slice(0, 40)}`, await adminCall(server, 'DELETE', `/admin/custom-providers/${identifier}`));
  }
  for (const [id, body] of [
    ['not-a-uuid', { metadata_url: 'https://127.0.0.1/m' }], [randomUUID(), { domains: ['x.example'] }], ['%00', {}],
  ] as const) {
    expectClientError(`PUT sso ${id}`, await adminCall(server, 'PUT', `/admin/sso/providers/${id}`, { body }));
    expectClientError(`DELETE sso ${id}`, await adminCall(server, 'DELETE', `/admin/sso/providers/${id}`));
  }
});

test('an administrator at AAL1 and a plain user reach none of the new or changed routes', async () => {
  expect((await adminCall(server, 'POST', '/admin/users', { body: { email: 'aal1-boss@odd.test', password: 'password-123', email_confirm: true, role: 'console_admin' } })).status).toBe(200);
  const target = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'aal1-target@odd.test', password: 'password-123', email_confirm: true } })).body;
  const signIn = async (email: string) => (await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } })).body.access_token as string;
  const aal1Admin = await signIn('aal1-boss@odd.test');
  const plainUser = await signIn('aal1-target@odd.test');
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/admin/audit?limit=5'],
    ['GET', `/admin/audit?limit=5&user_id=${target.id}`],
    ['DELETE', `/admin/users/${target.id}/passkeys/${randomUUID()}`],
    ['PUT', '/admin/custom-providers/custom:odd', { token_url: 'https://127.0.0.1/other' }],
    ['DELETE', '/admin/custom-providers/custom:odd'],
    ['PUT', `/admin/sso/providers/${randomUUID()}`, { domains: ['x.example'] }],
    ['DELETE', `/admin/sso/providers/${randomUUID()}`],
  ];
  for (const [method, path, body] of routes) {
    const asAdmin = await call(server.url, method, path, { token: aal1Admin, body });
    expect({ method, path, status: asAdmin.status, code: asAdmin.body.error_code }).toEqual({ method, path, status: 403, code: 'insufficient_aal' });
    const asUser = await call(server.url, method, path, { token: plainUser, body });
    expect({ method, path, status: asUser.status, code: asUser.body.error_code }).toEqual({ method, path, status: 403, code: 'not_admin' });
  }
});
