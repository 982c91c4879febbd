// What the admin console's management screens added to the admin API (issue 43), over real HTTP against a real
// database: GET /admin/audit in cursor mode (Keyzone's `limit`/`cursor`, the wire of /admin/users' cursor mode) walks
// every entry exactly once in the page mode's order, ties of created_at included, and refuses a bad cursor in GoTrue's
// error shape; page/per_page keep GoTrue's array. DELETE /admin/users/<id>/passkeys/<id> is audited under the admin.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { auditPageAfterStatement } from '../../src/queries/admin-audit';
import { adminCall, adminToken } from './admin-helpers';

jest.setTimeout(120_000);

interface Entry {
  id: string;
  created_at: string;
  payload: { action: string; actor_id: string; traits?: Record<string, unknown> };
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { PASSKEY_ENABLED: 'true', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_ORIGINS: 'http://localhost:1', MAILER_AUTOCONFIRM: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

/** Follows next_cursor from the first page to the last; checks each page's Link against the body. */
async function walk(query: string, limit: number): Promise<Entry[]> {
  const seen: Entry[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages += 1) {
    const res = await adminCall(server, 'GET', `/admin/audit?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBeNull();
    const { entries, pagination } = res.body as { entries: Entry[]; pagination: { next_cursor?: string; has_more: boolean } };
    seen.push(...entries);
    if (!pagination.has_more) {
      expect(pagination.next_cursor).toBeUndefined();
      expect(res.headers.get('link')).toBeNull();
      return seen;
    }
    expect(entries).toHaveLength(limit);
    const link = res.headers.get('link') ?? '';
    expect(link).toMatch(/; rel="next"$/);
    expect(new URL(link.slice(1, link.indexOf('>')), server.url).searchParams.get('cursor')).toBe(pagination.next_cursor);
    cursor = pagination.next_cursor;
  }
  throw new Error('the cursor never ended');
}

describe('GET /admin/audit in cursor mode', () => {
  beforeAll(async () => {
    // 250 audited admin actions through the API; the test clock moves only every 7th, so many entries share their
    // created_at and only the id orders them.
    for (let i = 0; i < 250; i += 1) {
      if (i % 7 === 0) server.clock.advance(1);
      const res = await adminCall(server, 'POST', '/admin/users', { body: { email: `paged-${i}@audit.test`, email_confirm: true } });
      expect(res.status).toBe(200);
    }
  });

  it('returns each of 250 entries exactly once, in the page mode\'s order', async () => {
    const all = await adminCall(server, 'GET', '/admin/audit?per_page=1000');
    expect(all.status).toBe(200);
    const expected = (all.body as Entry[]).map((e) => e.id);
    expect(expected.length).toBeGreaterThanOrEqual(250);
    for (const limit of [1, 25, 37, 1000]) {
      const walked = await walk('', limit);
      expect(walked.map((e) => e.id)).toEqual(expected);
    }
    // Newest first: created_at never grows along the walk.
    const walked = await walk('', 40);
    for (let i = 1; i < walked.length; i += 1) expect(Date.parse(walked[i]!.created_at)).toBeLessThanOrEqual(Date.parse(walked[i - 1]!.created_at));
  });

  it('keeps the filters on every page, and the next link carries them', async () => {
    const walked = await walk('&action=user_signedup', 30);
    const pageMode = (await adminCall(server, 'GET', '/admin/audit?per_page=1000&action=user_signedup')).body as Entry[];
    expect(walked.length).toBeGreaterThanOrEqual(250);
    expect(walked.map((e) => e.id)).toEqual(pageMode.map((e) => e.id));
    expect(walked.every((e) => e.payload.action === 'user_signedup')).toBe(true);
    const first = await adminCall(server, 'GET', '/admin/audit?limit=5&action=user_signedup');
    expect(first.headers.get('link')).toMatch(/[?&]action=user_signedup&cursor=[^&>]+&limit=5>; rel="next"$/);
  });

  it('keeps GoTrue\'s page/per_page: an array with X-Total-Count, and page wins over a cursor', async () => {
    const res = await adminCall(server, 'GET', '/admin/audit?page=2&per_page=100');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(100);
    expect(Number(res.headers.get('x-total-count'))).toBeGreaterThanOrEqual(250);
    expect(res.headers.get('link')).toContain('rel="next"');
    const both = await adminCall(server, 'GET', '/admin/audit?page=1&per_page=3&cursor=whatever');
    expect(Array.isArray(both.body)).toBe(true);
  });

  it('refuses a bad cursor or limit with 400 in GoTrue\'s error shape', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not a cursor!', b64({}), b64({ created_at: '2026-11-27T00:00:00Z', id: 'nope' }), b64({ created_at: 'yesterday', id: randomUUID() }),
      b64({ created_at: '2026-13-45T99:00:00Z', id: randomUUID() }), b64(['2026-11-27T00:00:00Z', randomUUID()]), Buffer.from('\u0000').toString('base64url'),
    ];
    for (const cursor of bad) {
      const res = await adminCall(server, 'GET', `/admin/audit?cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status: res.status, body: res.body }).toEqual({
        cursor, status: 400, body: { code: 400, error_code: 'validation_failed', msg: 'Bad Pagination Parameters: invalid cursor' },
      });
    }
    for (const query of ['limit=0', 'limit=abc', 'limit=-1', 'cursor=a&cursor=b', 'limit=5&user_id=nope']) {
      const res = await adminCall(server, 'GET', `/admin/audit?${query}`);
      expect({ query, status: res.status, code: res.body.error_code }).toEqual({ query, status: 400, code: 'validation_failed' });
    }
    // A well-formed cursor past the oldest entry is an empty last page, not an error.
    const past = await adminCall(server, 'GET', `/admin/audit?cursor=${b64({ created_at: '1999-01-01T00:00:00Z', id: randomUUID() })}`);
    expect([past.status, past.body]).toEqual([200, { entries: [], pagination: { has_more: false } }]);
  });

  it('is for admins only', async () => {
    const user = await call(server.url, 'POST', '/signup', { body: { email: 'not-admin@audit.test', password: 'password-123' } });
    expect((await call(server.url, 'GET', '/admin/audit?limit=5', { token: user.body.access_token })).status).toBe(403);
    expect((await call(server.url, 'GET', '/admin/audit?limit=5')).status).toBe(401);
  });

  it('reads a page from a position in the (created_at DESC, id) index, never scanning or sorting the table', async () => {
    // With the alternatives disabled, the plan shows a Seq Scan or a Sort exactly when the index cannot serve it.
    const db = server.deps.db as unknown as Kysely<unknown>;
    const text = await db.connection().execute(async (conn) => {
      for (const setting of ['enable_seqscan', 'enable_sort', 'enable_bitmapscan']) await sql`SELECT set_config(${setting}, 'off', false)`.execute(conn);
      const compiled = auditPageAfterStatement(conn as never, { limit: 26, after: { createdAt: '2026-11-27T00:00:00.000000Z', id: randomUUID() }, filters: { action: 'login' } }).compile(db);
      const explained = await conn.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `EXPLAIN ${compiled.sql}` });
      return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(text).toContain('audit_log_entries_created_at_idx');
    expect(text).toMatch(/Index Cond: \(created_at <= /);
    expect(text).not.toContain('Seq Scan');
    expect(text).not.toMatch(/^\s*(->\s*)?Sort/m);
  });

  it('reads a user\'s trail from the actor and the subject index, each from the position, never the whole log', async () => {
    const db = server.deps.db as unknown as Kysely<unknown>;
    const text = await db.connection().execute(async (conn) => {
      for (const setting of ['enable_seqscan', 'enable_bitmapscan']) await sql`SELECT set_config(${setting}, 'off', false)`.execute(conn);
      const compiled = auditPageAfterStatement(conn as never, { limit: 26, after: { createdAt: '2026-11-27T00:00:00.000000Z', id: randomUUID() }, filters: { userId: randomUUID() } }).compile(db);
      const explained = await conn.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `EXPLAIN ${compiled.sql}` });
      return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(text).toContain('audit_log_entries_actor_id_idx');
    expect(text).toContain('audit_log_entries_subject_idx');
    expect(text.match(/Index Cond: \(\(\(payload ->> 'actor_id'::text\) = .*created_at <= /g) ?? []).toHaveLength(1);
    expect(text).not.toContain('Seq Scan');
    expect(text).not.toContain('audit_log_entries_created_at_idx');
  });

  it('walks one user\'s trail (what they did, what was done to them, what they did to themselves) once each, in order', async () => {
    const user = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'trail@audit.test', password: 'password-123', email_confirm: true } })).body;
    const asThemselves = await server.deps.jwt.sign({ sub: user.id, role: 'service_role' }, { expiresInSeconds: 600, now: server.clock.now() });
    for (let i = 0; i < 5; i += 1) {
      if (i % 2 === 0) server.clock.advance(1);
      expect((await call(server.url, 'POST', '/token?grant_type=password', { body: { email: 'trail@audit.test', password: 'password-123' } })).status).toBe(200);
      expect((await adminCall(server, 'PUT', `/admin/users/${user.id}`, { body: { user_metadata: { n: i } } })).status).toBe(200);
      expect((await call(server.url, 'PUT', `/admin/users/${user.id}`, { token: asThemselves, body: { app_metadata: { n: i } } })).status).toBe(200);
    }
    const pageMode = (await adminCall(server, 'GET', `/admin/audit?per_page=1000&user_id=${user.id}`)).body as Entry[];
    const selfActions = pageMode.filter((e) => e.payload.actor_id === user.id && e.payload.traits?.user_id === user.id);
    expect(selfActions).toHaveLength(5);
    expect(pageMode.length).toBeGreaterThanOrEqual(16);
    for (const limit of [1, 2, 7]) {
      expect((await walk(`&user_id=${user.id}`, limit)).map((e) => e.id)).toEqual(pageMode.map((e) => e.id));
    }
    // actor_id alone: only what they did, from the actor index.
    const did = await walk(`&actor_id=${user.id}`, 3);
    expect(did.map((e) => e.id)).toEqual(pageMode.filter((e) => e.payload.actor_id === user.id).map((e) => e.id));
  });
});

describe('DELETE /admin/users/<id>/passkeys/<passkey_id>', () => {
  it('removes the passkey and records the admin in the audit log', async () => {
    const user = (await adminCall(server, 'POST', '/admin/users', { body: { email: 'lost-key@audit.test', email_confirm: true } })).body;
    const passkeyId = randomUUID();
    await sql`INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, friendly_name)
              VALUES (${passkeyId}::uuid, ${user.id}::uuid, ${`cred-${passkeyId}`}, 'cHVibGlj', 'Lost phone')`.execute(server.deps.db);
    const listed = await adminCall(server, 'GET', `/admin/users/${user.id}/passkeys`);
    expect(listed.body.map((p: { id: string; friendly_name: string }) => [p.id, p.friendly_name])).toEqual([[passkeyId, 'Lost phone']]);

    const token = await server.deps.jwt.sign({ sub: 'console-admin-1', role: 'service_role', email: 'boss@audit.test' }, { expiresInSeconds: 600, now: server.clock.now() });
    const removed = await call(server.url, 'DELETE', `/admin/users/${user.id}/passkeys/${passkeyId}`, { token });
    expect(removed.status).toBe(204);
    expect((await adminCall(server, 'GET', `/admin/users/${user.id}/passkeys`)).body).toEqual([]);
    const again = await call(server.url, 'DELETE', `/admin/users/${user.id}/passkeys/${passkeyId}`, { token });
    expect(again.status).toBe(404);

    const trail = (await adminCall(server, 'GET', `/admin/audit?limit=10&user_id=${user.id}`)).body.entries as Entry[];
    const deletions = trail.filter((e) => e.payload.traits?.action === 'passkey_deleted');
    expect(deletions).toHaveLength(1);
    expect(deletions[0]!.payload).toMatchObject({
      action: 'user_modified', actor_id: 'console-admin-1', actor_username: 'boss@audit.test',
      traits: { user_id: user.id, passkey_id: passkeyId, action: 'passkey_deleted' },
    });
    for (const path of [`/admin/users/nope/passkeys/${passkeyId}`, `/admin/users/${user.id}/passkeys/nope`]) {
      expect((await call(server.url, 'DELETE', path, { token: await adminToken(server) })).status).toBe(404);
    }
  });
});
