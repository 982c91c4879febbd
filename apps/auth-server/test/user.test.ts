// GET /user and PUT /user, and the requireUser guard's failures.
import { hashOneTimeToken } from '@keyzone/tokens';
import { call } from './helpers/http';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from './helpers/server';
import { claimsOf, refresh, signIn, signUp } from './helpers/users';
import { createJwtService } from '@keyzone/tokens';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

describe('GET /user', () => {
  it.each(['/user', '/auth/v1/user'])('%s returns the user JSON', async (path) => {
    const account = await signUp(server.url);
    const res = await call(server.url, 'GET', path, { token: account.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(account.user);
  });

  it('no bearer is 401 no_authorization in both shapes', async () => {
    const legacy = await call(server.url, 'GET', '/user');
    expect(legacy.status).toBe(401);
    expect(legacy.body).toEqual({ code: 401, error_code: 'no_authorization', msg: 'This endpoint requires a valid Bearer token' });
    const fresh = await call(server.url, 'GET', '/user', { newShape: true, headers: { authorization: 'Basic abc' } });
    expect(fresh.status).toBe(401);
    expect(fresh.body).toEqual({ code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' });
  });

  it('a garbled, foreign or expired token is 403 bad_jwt', async () => {
    const account = await signUp(server.url);
    const foreign = await (await createJwtService({ secret: 'another-secret-of-enough-length-123456' })).sign(
      claimsOf(account.access_token), { expiresInSeconds: 3600 });
    for (const token of ['garbage', foreign]) {
      const res = await call(server.url, 'GET', '/user', { token });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error_code: 'bad_jwt' });
    }
    server.clock.advance(3601);
    const expired = await call(server.url, 'GET', '/user', { token: account.access_token, newShape: true });
    expect(expired.status).toBe(403);
    expect(expired.body).toMatchObject({ code: 'bad_jwt' });
  });

  it('a token that worked before is refused once it expires (verification results are remembered only until exp)', async () => {
    const account = await signUp(server.url);
    expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(200);
    expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(200);
    server.clock.advance(3601);
    const res = await call(server.url, 'GET', '/user', { token: account.access_token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: 'bad_jwt' });
  });

  it('a token whose session is gone is 403 session_not_found', async () => {
    const account = await signUp(server.url);
    await server.deps.db.deleteFrom('auth.sessions').where('user_id', '=', account.user.id).execute();
    const res = await call(server.url, 'GET', '/user', { token: account.access_token, newShape: true });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' });
  });

  it('a deleted user is 403 user_not_found; a banned one 403 user_banned', async () => {
    const gone = await signUp(server.url);
    await server.deps.db.deleteFrom('auth.users').where('id', '=', gone.user.id).execute();
    const res = await call(server.url, 'GET', '/user', { token: gone.access_token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: 'user_not_found' });

    const banned = await signUp(server.url);
    await server.deps.db.updateTable('auth.users').set({ banned_until: new Date(server.clock.now().getTime() + 60_000) }).where('id', '=', banned.user.id).execute();
    const res2 = await call(server.url, 'GET', '/user', { token: banned.access_token });
    expect(res2.status).toBe(403);
    expect(res2.body).toMatchObject({ error_code: 'user_banned' });
  });

  it('a token for another audience is 400 validation_failed', async () => {
    const account = await signUp(server.url);
    const jwt = await createJwtService({ secret: TEST_JWT_SECRET });
    const token = await jwt.sign({ ...claimsOf(account.access_token), aud: 'other' }, { expiresInSeconds: 60, now: server.clock.now() });
    const res = await call(server.url, 'GET', '/user', { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'validation_failed', msg: "Token audience doesn't match request audience" });
    expect((await call(server.url, 'GET', '/user', { token, headers: { 'x-jwt-aud': 'other' } })).status).toBe(200);
  });

  it('a token without session_id (e.g. minted by an admin tool) still works when sub is a user', async () => {
    const account = await signUp(server.url);
    const jwt = await createJwtService({ secret: TEST_JWT_SECRET });
    const token = await jwt.sign({ sub: account.user.id, role: 'authenticated', aud: 'authenticated' }, { expiresInSeconds: 60, now: server.clock.now() });
    const res = await call(server.url, 'GET', '/user', { token });
    expect(res.status).toBe(200);
  });
});

describe('PUT /user', () => {
  it('merges data into user_metadata; null deletes a key', async () => {
    const account = await signUp(server.url);
    await call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { a: 1, b: 2 } } });
    const res = await call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { b: null, c: 'x' } } });
    expect(res.status).toBe(200);
    expect(res.body.user_metadata).toEqual({ a: 1, c: 'x' });
    expect(res.body.id).toBe(account.user.id);
  });

  it('concurrent updates of different keys all survive (merged in SQL)', async () => {
    const account = await signUp(server.url);
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    const results = await Promise.all(keys.map((k) => call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { [k]: k } } })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const user = await call(server.url, 'GET', '/user', { token: account.access_token });
    expect(user.body.user_metadata).toEqual(Object.fromEntries(keys.map((k) => [k, k])));
  });

  it('changes the password, ends the other sessions and keeps this one', async () => {
    const account = await signUp(server.url);
    const other = await signIn(server.url, account.email, account.password);
    const res = await call(server.url, 'PUT', '/user', { token: account.access_token, body: { password: 'new-password-1' } });
    expect(res.status).toBe(200);
    expect((await call(server.url, 'GET', '/user', { token: account.access_token })).status).toBe(200);
    const otherUser = await call(server.url, 'GET', '/user', { token: other.access_token });
    expect(otherUser.status).toBe(403);
    expect(otherUser.body).toMatchObject({ error_code: 'session_not_found' });
    expect((await refresh(server.url, other.refresh_token)).status).toBe(400);
    const old = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: account.email, password: account.password } });
    expect(old.status).toBe(400);
    await signIn(server.url, account.email, 'new-password-1');
  });

  it('a weak password is 422 weak_password; the same password 422 same_password; over 72 bytes 400', async () => {
    const account = await signUp(server.url);
    const weak = await call(server.url, 'PUT', '/user', { token: account.access_token, body: { password: 'abc' }, newShape: true });
    expect(weak.status).toBe(422);
    expect(weak.body).toEqual({ code: 'weak_password', message: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] } });
    const same = await call(server.url, 'PUT', '/user', { token: account.access_token, body: { password: account.password } });
    expect(same.status).toBe(422);
    expect(same.body).toMatchObject({ error_code: 'same_password' });
    const long = await call(server.url, 'PUT', '/user', { token: account.access_token, body: { password: 'x'.repeat(73) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ error_code: 'validation_failed' });
  });

  it('a failing password change leaves the metadata untouched (one transaction)', async () => {
    const reauth = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true' } });
    try {
      const account = await signUp(reauth.url);
      const res = await call(reauth.url, 'PUT', '/user', { token: account.access_token, body: { data: { x: 1 }, password: 'new-password-1' } });
      expect(res.status).toBe(400);
      const user = await call(reauth.url, 'GET', '/user', { token: account.access_token });
      expect(user.body.user_metadata).toEqual({});
    } finally {
      await reauth.close();
    }
  });

  it('with reauthentication required: no nonce 400, wrong or expired nonce 422, the right nonce works once', async () => {
    const reauth = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true' } });
    try {
      const account = await signUp(reauth.url);
      const put = (body: object) => call(reauth.url, 'PUT', '/user', { token: account.access_token, body, newShape: true });
      const missing = await put({ password: 'new-password-1' });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ code: 'reauthentication_needed', message: 'Password update requires reauthentication' });

      // What /reauthenticate (email engineer) stores: SHA-224(email + nonce) and the send time.
      const setNonce = (nonce: string, sentAt = reauth.clock.now()) =>
        reauth.deps.db.updateTable('auth.users')
          .set({ reauthentication_token: hashOneTimeToken(account.email, nonce), reauthentication_sent_at: sentAt })
          .where('id', '=', account.user.id).execute();
      await setNonce('123456');
      const wrong = await put({ password: 'new-password-1', nonce: '654321' });
      expect(wrong.status).toBe(422);
      expect(wrong.body).toEqual({ code: 'reauthentication_not_valid', message: 'Nonce has expired or is invalid' });

      await setNonce('123456', new Date(reauth.clock.now().getTime() - 86401_000)); // MAILER_OTP_EXP default 86400 s
      const expired = await put({ password: 'new-password-1', nonce: '123456' });
      expect(expired.status).toBe(422);

      await setNonce('111222');
      const ok = await put({ password: 'new-password-1', nonce: '111222' });
      expect(ok.status).toBe(200);
      const replay = await put({ password: 'new-password-2', nonce: '111222' });
      expect(replay.status).toBe(422);
    } finally {
      await reauth.close();
    }
  });

  it('audits metadata and password changes', async () => {
    const account = await signUp(server.url);
    await call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { k: 1 }, password: 'another-pass-1' } });
    const actions = (await server.deps.db.selectFrom('auth.audit_log_entries').select('payload').execute())
      .map((r) => r.payload as Record<string, unknown>)
      .filter((p) => p.actor_id === account.user.id)
      .map((p) => p.action);
    expect(actions).toEqual(expect.arrayContaining(['user_modified', 'user_updated_password']));
  });
});
