// Refresh-token rotation and reuse detection (reference §5.3), moving the injected clock.
import { sql } from 'kysely';
import { tryFastRefresh } from '../src/queries/refresh-fast';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { claimsOf, refresh, signUp } from './helpers/users';

let server: TestServer; // rotation on, reuse interval 10 s (defaults)

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function tokensOf(s: TestServer, sessionId: string) {
  return s.deps.db
    .selectFrom('auth.refresh_tokens')
    .select(['token', 'revoked', 'parent', 'session_id'])
    .where('session_id', '=', sessionId)
    .orderBy('id')
    .execute();
}

describe('rotation', () => {
  it('revokes the presented token and issues a child in the same session', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    server.clock.advance(30);
    const res = await refresh(server.url, account.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).not.toBe(account.refresh_token);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { id: account.user.id } });
    const claims = claimsOf(res.body.access_token);
    expect(claims.session_id).toBe(sessionId);
    expect(claims.iat).toBe(Math.floor(server.clock.now().getTime() / 1000));
    expect(claims.amr).toEqual(claimsOf(account.access_token).amr); // AMR unchanged by refresh
    expect(await tokensOf(server, sessionId)).toEqual([
      { token: account.refresh_token, revoked: true, parent: null, session_id: sessionId },
      { token: res.body.refresh_token, revoked: false, parent: account.refresh_token, session_id: sessionId },
    ]);
    const actions = (await server.deps.db.selectFrom('auth.audit_log_entries').select('payload').execute())
      .map((r) => r.payload as Record<string, unknown>)
      .filter((p) => p.actor_id === account.user.id)
      .map((p) => p.action);
    expect(actions).toEqual(expect.arrayContaining(['token_revoked', 'token_refreshed']));
  });

  it('claims are recomputed from the database on refresh', async () => {
    const account = await signUp(server.url);
    await call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { plan: 'pro' } } });
    const res = await refresh(server.url, account.refresh_token);
    expect(claimsOf(res.body.access_token).user_metadata).toEqual({ plan: 'pro' });
  });

  it('works at /auth/v1 too', async () => {
    const account = await signUp(server.url);
    const res = await call(server.url, 'POST', '/auth/v1/token?grant_type=refresh_token', { body: { refresh_token: account.refresh_token } });
    expect(res.status).toBe(200);
  });
});

describe('fast path', () => {
  it('rotates a live token in one statement, writing the same rows as the transactional path', async () => {
    const account = await signUp(server.url);
    await call(server.url, 'PUT', '/user', { token: account.access_token, body: { data: { full_name: 'Ada L' } } });
    const sessionId = claimsOf(account.access_token).session_id as string;
    const at = server.clock.now();
    const fast = (await tryFastRefresh(server.deps.db, { token: account.refresh_token, child: 'fastchild001', at, userAgent: 'ua/1', ip: '10.9.8.7', auditIp: '10.9.8.7' })).refreshed;
    expect(fast?.session.id).toBe(sessionId);
    expect(fast?.user).toMatchObject({ id: account.user.id, email: account.email, raw_user_meta_data: { full_name: 'Ada L' } });
    expect(fast?.identities).toHaveLength(1);
    expect(fast?.amr.map((a) => a.authentication_method)).toEqual(['password']);
    expect(await tokensOf(server, sessionId)).toEqual([
      { token: account.refresh_token, revoked: true, parent: null, session_id: sessionId },
      { token: 'fastchild001', revoked: false, parent: account.refresh_token, session_id: sessionId },
    ]);
    const session = await server.deps.db.selectFrom('auth.sessions').select(['user_agent', 'ip', 'refreshed_at']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(session).toMatchObject({ user_agent: 'ua/1', ip: '10.9.8.7', refreshed_at: at });
    const audit = (await server.deps.db.selectFrom('auth.audit_log_entries').select(['payload', 'ip_address', 'created_at']).execute())
      .filter((r) => (r.payload as Record<string, unknown>).actor_id === account.user.id && (r.payload as Record<string, unknown>).log_type === 'token');
    expect(audit.map((r) => r.payload).sort((a, b) => String((a as { action: string }).action).localeCompare(String((b as { action: string }).action)))).toEqual([
      { actor_id: account.user.id, actor_username: account.email, actor_name: 'Ada L', actor_via_sso: false, action: 'token_refreshed', log_type: 'token' },
      { actor_id: account.user.id, actor_username: account.email, actor_name: 'Ada L', actor_via_sso: false, action: 'token_revoked', log_type: 'token' },
    ]);
    expect(audit.every((r) => r.ip_address === '10.9.8.7')).toBe(true);
    // A revoked token, or a session locked by someone else, is not the fast path's business.
    expect(await tryFastRefresh(server.deps.db, { token: account.refresh_token, child: 'fastchild002', at, userAgent: null, ip: null, auditIp: '' })).toEqual({ refreshed: undefined, seenLive: false });
    const locked = await server.deps.db.transaction().execute(async (tx) => {
      await sql`select id from auth.sessions where id = ${sessionId} for update`.execute(tx);
      return tryFastRefresh(server.deps.db, { token: 'fastchild001', child: 'fastchild003', at, userAgent: null, ip: null, auditIp: '' });
    });
    expect(locked).toEqual({ refreshed: undefined, seenLive: true }); // live but locked: a race, not reuse
    expect((await tokensOf(server, sessionId)).filter((t) => !t.revoked).map((t) => t.token)).toEqual(['fastchild001']);
  });
});

describe('reuse', () => {
  it('within the interval the previous token returns the current child, minting nothing', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    const first = await refresh(server.url, account.refresh_token);
    server.clock.advance(9);
    const again = await refresh(server.url, account.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(first.body.refresh_token);
    expect(await tokensOf(server, sessionId)).toHaveLength(2);
  });

  it('after the interval the previous token is reuse: 400 and the whole session is revoked', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    const first = await refresh(server.url, account.refresh_token);
    server.clock.advance(11);
    const reused = await refresh(server.url, account.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ code: 400, error_code: 'refresh_token_already_used', msg: 'Invalid Refresh Token: Already Used' });
    // The revocation was committed although the request failed.
    expect((await tokensOf(server, sessionId)).every((t) => t.revoked)).toBe(true);
    const child = await refresh(server.url, first.body.refresh_token);
    expect(child.status).toBe(400);
    expect(child.body).toMatchObject({ error_code: 'refresh_token_already_used' });
  });

  it('an older ancestor is reuse even inside the interval', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    const first = await refresh(server.url, account.refresh_token);
    const second = await refresh(server.url, first.body.refresh_token);
    expect(second.status).toBe(200);
    const reused = await refresh(server.url, account.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error_code: 'refresh_token_already_used' });
    expect((await tokensOf(server, sessionId)).filter((t) => !t.revoked)).toEqual([]);
  });

  it('with rotation disabled, reuse is refused but the session survives', async () => {
    const relaxed = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: 'false' } });
    try {
      const account = await signUp(relaxed.url);
      const first = await refresh(relaxed.url, account.refresh_token);
      relaxed.clock.advance(60);
      const reused = await refresh(relaxed.url, account.refresh_token, true);
      expect(reused.status).toBe(400);
      expect(reused.body).toEqual({ code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' });
      expect((await refresh(relaxed.url, first.body.refresh_token)).status).toBe(200);
    } finally {
      await relaxed.close();
    }
  });

  it('a banned user cannot refresh', async () => {
    const account = await signUp(server.url);
    await server.deps.db.updateTable('auth.users').set({ banned_until: new Date(server.clock.now().getTime() + 60_000) }).where('id', '=', account.user.id).execute();
    const res = await refresh(server.url, account.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'user_banned' });
  });

  it('a token of a logged-out session is not found', async () => {
    const account = await signUp(server.url);
    await call(server.url, 'POST', '/logout', { token: account.access_token });
    const res = await refresh(server.url, account.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'refresh_token_not_found' });
  });
});

describe('concurrency', () => {
  it('20 parallel refreshes of one token: no 5xx, one live token, everyone gets it', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(server.url, account.refresh_token)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const live = (await tokensOf(server, sessionId)).filter((t) => !t.revoked);
    expect(live).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.refresh_token))).toEqual(new Set([live[0]?.token]));
  });

  it('answers 409 conflict when the session stays locked for 5 s', async () => {
    const account = await signUp(server.url);
    const sessionId = claimsOf(account.access_token).session_id as string;
    const res = await server.deps.db.transaction().execute(async (tx) => {
      await sql`select id from auth.sessions where id = ${sessionId} for update`.execute(tx);
      return refresh(server.url, account.refresh_token, true);
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'conflict', message: expect.any(String) });
    expect((await refresh(server.url, account.refresh_token)).status).toBe(200); // nothing was consumed
  });
});
