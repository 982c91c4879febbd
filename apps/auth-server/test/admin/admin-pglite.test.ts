// Smoke run of the admin listing on embedded PGlite (the default dev database): the trigram
// filter, the planner-estimate count and the paging headers work there too.
import { startTestServer, type TestServer } from '../helpers/server';
import { adminCall } from './admin-helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ kind: 'pglite' });
});
afterAll(async () => {
  await server?.close();
});

it('creates, filters, pages and deletes on PGlite', async () => {
  for (const name of ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']) {
    server.clock.advance(1);
    const email = `${name.split(' ')[0]!.toLowerCase()}@pglite.example`;
    const res = await adminCall(server, 'POST', '/admin/users', { body: { email, user_metadata: { full_name: name } } });
    expect(res.status).toBe(200);
  }
  const page = await adminCall(server, 'GET', '/admin/users?per_page=2');
  expect(page.status).toBe(200);
  expect(page.body.users.map((u: { email: string }) => u.email)).toEqual(['alan@pglite.example', 'grace@pglite.example']);
  expect(page.headers.get('x-total-count')).toBe('3');
  expect(page.headers.get('link')).toBe('</admin/users?page=2&per_page=2>; rel="next", </admin/users?page=2&per_page=2>; rel="last"');

  const filtered = await adminCall(server, 'GET', '/admin/users?filter=HOPPER');
  expect(filtered.body.users.map((u: { email: string }) => u.email)).toEqual(['grace@pglite.example']);
  expect(filtered.headers.get('x-total-count')).toBe('1');

  const first = await adminCall(server, 'GET', '/admin/users?limit=2');
  const second = await adminCall(server, 'GET', `/admin/users?limit=2&cursor=${first.body.pagination.next_cursor}`);
  expect(second.body.users.map((u: { email: string }) => u.email)).toEqual(['ada@pglite.example']);
  expect(second.body.pagination).toEqual({ has_more: false });

  const id = page.body.users[0].id;
  server.clock.advance(1); // audit entries of one instant have no order among themselves
  expect((await adminCall(server, 'DELETE', `/admin/users/${id}`, { body: { should_soft_delete: true } })).status).toBe(200);
  expect((await adminCall(server, 'GET', `/admin/users/${id}`)).body.deleted_at).toBeTruthy();
  const audit = await adminCall(server, 'GET', '/admin/audit');
  expect(audit.body[0].payload.action).toBe('user_deleted');
});
