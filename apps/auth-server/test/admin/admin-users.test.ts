// /admin/users over real HTTP on PostgreSQL: authorization, create (every field), get, update,
// ban/unban with its effect on sign-in, refresh and user routes, hard and soft delete.
import bcrypt from 'bcrypt';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { refresh, signIn, signUp, uniqueEmail } from '../helpers/users';
import { adminCall, adminToken } from './admin-helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function create(body: Record<string, unknown>) {
  return adminCall(server, 'POST', '/admin/users', { body });
}

describe('authorization', () => {
  it('needs a bearer token (401 no_authorization)', async () => {
    const res = await call(server.url, 'GET', '/admin/users', { newShape: true });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('no_authorization');
  });

  it('refuses a user access token (403 not_admin)', async () => {
    const session = await signUp(server.url);
    const res = await call(server.url, 'GET', '/admin/users', { token: session.access_token, newShape: true });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('not_admin');
  });

  it('accepts supabase_admin as well, under /auth/v1 too', async () => {
    const res = await call(server.url, 'GET', '/auth/v1/admin/users', { token: await adminToken(server, 'supabase_admin') });
    expect(res.status).toBe(200);
  });
});

describe('POST /admin/users', () => {
  it('creates a confirmed email user with metadata, role and merged app_metadata', async () => {
    const email = uniqueEmail('created');
    const res = await create({
      email: email.toUpperCase(),
      password: 'password-123',
      email_confirm: true,
      user_metadata: { full_name: 'Grace Hopper' },
      app_metadata: { plan: 'pro' },
      role: 'editor',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      aud: 'authenticated',
      role: 'editor',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
      user_metadata: { full_name: 'Grace Hopper' },
      is_anonymous: false,
    });
    expect(res.body.email_confirmed_at).toMatch(ISO);
    expect(res.body.identities).toHaveLength(1);
    expect(res.body.identities[0]).toMatchObject({
      provider: 'email',
      id: res.body.id,
      user_id: res.body.id,
      identity_data: { email, email_verified: true },
    });
    const session = await signIn(server.url, email, 'password-123');
    expect(session.user.id).toBe(res.body.id);
  });

  it('creates a phone user (digits only) with the phone provider', async () => {
    const res = await create({ phone: '+1 555 010 9999', phone_confirm: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: '', phone: '15550109999', app_metadata: { provider: 'phone', providers: ['phone'] } });
    expect(res.body.phone_confirmed_at).toMatch(ISO);
    expect(res.body.identities[0].provider).toBe('phone');
  });

  it('an unconfirmed user without a password cannot sign in until confirmed', async () => {
    const email = uniqueEmail('nopass');
    const res = await create({ email });
    expect(res.status).toBe(200);
    expect(res.body.email_confirmed_at).toBeUndefined();
  });

  it('needs an email or a phone (400)', async () => {
    const res = await adminCall(server, 'POST', '/admin/users', { body: { password: 'password-123' }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'validation_failed', message: 'Cannot create a user without either an email or phone' });
  });

  it('rejects duplicates with 422 email_exists / phone_exists', async () => {
    const email = uniqueEmail('dup');
    expect((await create({ email, phone: '4915112345678' })).status).toBe(200);
    const again = await adminCall(server, 'POST', '/admin/users', { body: { email }, newShape: true });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('email_exists');
    const phone = await adminCall(server, 'POST', '/admin/users', { body: { phone: '+49 151 12345678' }, newShape: true });
    expect(phone.status).toBe(422);
    expect(phone.body.code).toBe('phone_exists');
  });

  it('concurrent creates of one email: exactly one wins, the rest get 422 (never 500)', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ email, password: 'password-123' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 422, 422, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.error_code).toBe('email_exists');
  });

  it('rejects bad input with 400 validation_failed, never 500', async () => {
    for (const body of [{ email: 'not-an-email' }, { email: 42 }, { phone: 'abc' }, { email: uniqueEmail(), email_confirm: 'yes' }]) {
      const res = await adminCall(server, 'POST', '/admin/users', { body, newShape: true });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
  });

  it('refuses NUL characters anywhere in the body (PostgreSQL cannot store them) with 400', async () => {
    for (const body of [
      { email: uniqueEmail(), user_metadata: { a: 'x\u0000y' } },
      { email: uniqueEmail(), app_metadata: { ['k\u0000']: 1 } },
      { email: uniqueEmail(), role: 'r\u0000' },
    ]) {
      const res = await adminCall(server, 'POST', '/admin/users', { body, newShape: true });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
    const filter = await adminCall(server, 'GET', '/admin/users?filter=ab%00cd', { newShape: true });
    expect([filter.status, filter.body.code]).toEqual([400, 'validation_failed']);
  });

  it('checks the password policy (422 weak_password)', async () => {
    const res = await adminCall(server, 'POST', '/admin/users', { body: { email: uniqueEmail(), password: '123' }, newShape: true });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('weak_password');
  });

  it('POST /admin/users/<user_id> creates the user with that id, once', async () => {
    const id = '0b6f1a52-8c1e-4f6e-9a43-3c2d1e0f9a77';
    const res = await adminCall(server, 'POST', `/admin/users/${id}`, { body: { email: uniqueEmail('withid') } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    const again = await adminCall(server, 'POST', `/admin/users/${id}`, { body: { email: uniqueEmail('withid') }, newShape: true });
    expect(again.status).toBe(422);
    const bad = await adminCall(server, 'POST', '/admin/users/not-a-uuid', { body: { email: uniqueEmail() }, newShape: true });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });

  it('imports a bcrypt password_hash; other hash formats are refused by name', async () => {
    const email = uniqueEmail('imported');
    const hash = await bcrypt.hash('imported-secret', 4);
    expect((await create({ email, password_hash: hash, email_confirm: true })).status).toBe(200);
    expect((await signIn(server.url, email, 'imported-secret')).user.email).toBe(email);

    const argon = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG';
    const res = await adminCall(server, 'POST', '/admin/users', { body: { email: uniqueEmail(), password_hash: argon }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain('Argon2');
    expect(res.body.message).not.toContain('c29tZXNhbHQ');
  });
});

describe('GET /admin/users/<user_id>', () => {
  it('returns the user; a bad UUID or an unknown id is 404 user_not_found', async () => {
    const created = await create({ email: uniqueEmail('get') });
    const res = await adminCall(server, 'GET', `/admin/users/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    for (const id of ['nope', '4f0c6a8e-0000-4000-8000-000000000000']) {
      const missing = await adminCall(server, 'GET', `/admin/users/${id}`, { newShape: true });
      expect([missing.status, missing.body.code]).toEqual([404, 'user_not_found']);
    }
  });
});

describe('PUT /admin/users/<user_id>', () => {
  it('changes email (and its identity), merges metadata, confirms, sets role and password', async () => {
    const created = await create({ email: uniqueEmail('put'), user_metadata: { a: 1, b: 2 } });
    const email = uniqueEmail('moved');
    const res = await adminCall(server, 'PUT', `/admin/users/${created.body.id}`, {
      body: { email, user_metadata: { b: null, c: 3 }, app_metadata: { tier: 'gold' }, email_confirm: true, role: 'staff', password: 'new-password-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email,
      role: 'staff',
      user_metadata: { a: 1, c: 3 },
      app_metadata: { provider: 'email', providers: ['email'], tier: 'gold' },
    });
    expect(res.body.user_metadata).not.toHaveProperty('b');
    expect(res.body.email_confirmed_at).toMatch(ISO);
    expect(res.body.identities[0].identity_data).toMatchObject({ email, email_verified: true });
    expect((await signIn(server.url, email, 'new-password-1')).user.id).toBe(created.body.id);
  });

  it('refuses a weak password, a taken email, and unknown users', async () => {
    const taken = uniqueEmail('taken');
    await create({ email: taken });
    const created = await create({ email: uniqueEmail('put2') });
    const weak = await adminCall(server, 'PUT', `/admin/users/${created.body.id}`, { body: { password: 'x' }, newShape: true });
    expect([weak.status, weak.body.code]).toEqual([422, 'weak_password']);
    const dup = await adminCall(server, 'PUT', `/admin/users/${created.body.id}`, { body: { email: taken }, newShape: true });
    expect([dup.status, dup.body.code]).toEqual([422, 'email_exists']);
    const missing = await adminCall(server, 'PUT', '/admin/users/00000000-0000-4000-8000-000000000001', { body: {}, newShape: true });
    expect([missing.status, missing.body.code]).toEqual([404, 'user_not_found']);
  });
});

describe('ban_duration', () => {
  it('a banned user cannot sign in, refresh or use a live token; none unbans', async () => {
    const session = await signUp(server.url);
    const id = session.user.id;
    const banned = await adminCall(server, 'PUT', `/admin/users/${id}`, { body: { ban_duration: '1h30m' } });
    expect(banned.status).toBe(200);
    expect(new Date(banned.body.banned_until).getTime()).toBe(server.clock.now().getTime() + 90 * 60 * 1000);

    const login = await call(server.url, 'POST', '/token?grant_type=password', {
      body: { email: session.email, password: session.password },
      newShape: true,
    });
    expect([login.status, login.body.code]).toEqual([400, 'user_banned']);
    const refreshed = await refresh(server.url, session.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error_code).toBe('user_banned');
    const me = await call(server.url, 'GET', '/user', { token: session.access_token, newShape: true });
    expect([me.status, me.body.code]).toEqual([403, 'user_banned']);

    const unbanned = await adminCall(server, 'PUT', `/admin/users/${id}`, { body: { ban_duration: 'none' } });
    expect(unbanned.status).toBe(200);
    expect(unbanned.body.banned_until).toBeUndefined();
    expect((await signIn(server.url, session.email, session.password)).user.id).toBe(id);
  });

  it('a ban ends by itself when its time is up', async () => {
    const session = await signUp(server.url);
    await adminCall(server, 'PUT', `/admin/users/${session.user.id}`, { body: { ban_duration: '500ms' } });
    server.clock.advance(1);
    expect((await signIn(server.url, session.email, session.password)).user.id).toBe(session.user.id);
  });

  it.each(['forever', '90', '1d', '-', '1h 30m'])('rejects %p with 400 validation_failed naming the value', async (value) => {
    const created = await create({ email: uniqueEmail('ban') });
    const res = await adminCall(server, 'PUT', `/admin/users/${created.body.id}`, { body: { ban_duration: value }, newShape: true });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(JSON.stringify(value));
    const onCreate = await adminCall(server, 'POST', '/admin/users', { body: { email: uniqueEmail(), ban_duration: value }, newShape: true });
    expect(onCreate.status).toBe(400);
  });

  it('creating a user banned for 24h', async () => {
    const res = await create({ email: uniqueEmail('bannednew'), ban_duration: '24h' });
    expect(res.status).toBe(200);
    expect(new Date(res.body.banned_until).getTime()).toBe(server.clock.now().getTime() + 24 * 3600 * 1000);
  });
});

describe('DELETE /admin/users/<user_id>', () => {
  it('hard delete removes the user and its sessions', async () => {
    const session = await signUp(server.url);
    const res = await adminCall(server, 'DELETE', `/admin/users/${session.user.id}`);
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await adminCall(server, 'GET', `/admin/users/${session.user.id}`)).status).toBe(404);
    expect((await refresh(server.url, session.refresh_token)).status).toBe(400);
    expect((await adminCall(server, 'DELETE', `/admin/users/${session.user.id}`)).status).toBe(404);
  });

  it('soft delete obfuscates email and identities, sets deleted_at and ends sessions', async () => {
    const session = await signUp(server.url);
    const res = await adminCall(server, 'DELETE', `/admin/users/${session.user.id}`, { body: { should_soft_delete: true } });
    expect([res.status, res.body]).toEqual([200, {}]);
    const after = await adminCall(server, 'GET', `/admin/users/${session.user.id}`);
    expect(after.status).toBe(200);
    expect(after.body.deleted_at).toMatch(ISO);
    expect(after.body.email).toMatch(/^[0-9a-f]{64}$/);
    expect(after.body.identities[0].id).toMatch(/^[0-9a-f]{64}$/);
    expect(after.body.identities[0].identity_data).toEqual({});
    expect((await refresh(server.url, session.refresh_token)).status).toBe(400);
    const me = await call(server.url, 'GET', '/user', { token: session.access_token, newShape: true });
    expect(me.status).toBe(403);
    const login = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: session.email, password: session.password } });
    expect(login.status).toBe(400);
    // The address is free again.
    expect((await create({ email: session.email })).status).toBe(200);
  });
});
