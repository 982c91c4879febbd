// GET /admin/users paging, filter, sort and the exact X-Total-Count / Link headers auth-js parses;
// GET /admin/audit. One fresh PostgreSQL database, so the counts are known.
import { startTestServer, type TestServer } from '../helpers/server';
import { provenTotal } from '../../src/services/admin/users-list';
import { adminCall } from './admin-helpers';

let server: TestServer;
const names = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Frances Allen'];
const ids: string[] = []; // in creation order

beforeAll(async () => {
  server = await startTestServer();
  for (const [i, name] of names.entries()) {
    server.clock.advance(60); // distinct created_at, in this order
    const email = `${name.split(' ')[1]!.toLowerCase()}${i}@list.example`;
    const res = await adminCall(server, 'POST', '/admin/users', { body: { email, user_metadata: { full_name: name } } });
    if (res.status !== 200) throw new Error(res.text);
    ids.push(res.body.id);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('paging', () => {
  it('X-Total-Count and Link with page= first and quoted rel', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?page=1&per_page=3');
    expect(res.status).toBe(200);
    expect(res.body.aud).toBe('authenticated');
    expect(res.body.users.map((u: { id: string }) => u.id)).toEqual([ids[6], ids[5], ids[4]]); // newest first
    expect(res.headers.get('x-total-count')).toBe('7');
    expect(res.headers.get('link')).toBe('</admin/users?page=2&per_page=3>; rel="next", </admin/users?page=3&per_page=3>; rel="last"');
  });

  it('the last page has no rel="next"; the prefix of the request is kept', async () => {
    const res = await adminCall(server, 'GET', '/auth/v1/admin/users?per_page=3&page=3');
    expect(res.body.users.map((u: { id: string }) => u.id)).toEqual([ids[0]]);
    expect(res.headers.get('link')).toBe('</auth/v1/admin/users?page=3&per_page=3>; rel="last"');
  });

  it('empty page= and per_page= (what auth-js sends) mean page 1 of 50', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?page=&per_page=');
    expect(res.body.users).toHaveLength(7);
    expect(res.headers.get('link')).toBe('</admin/users?page=1&per_page=50>; rel="last"');
  });

  it('per_page is capped at 1000', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?per_page=5000');
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe('</admin/users?page=1&per_page=1000>; rel="last"');
  });

  it('a page past the end is empty', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?page=9&per_page=3');
    expect(res.body.users).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('7');
  });

  it.each(['page=0', 'page=-1', 'per_page=0', 'per_page=abc', 'page=1.5', 'sort=email', 'sort=created_at%20sideways'])(
    '%s → 400 validation_failed',
    async (query) => {
      const res = await adminCall(server, 'GET', `/admin/users?${query}`, { newShape: true });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    },
  );

  it('sort=created_at asc is oldest first; desc and the default newest first', async () => {
    const asc = await adminCall(server, 'GET', '/admin/users?sort=created_at%20asc');
    expect(asc.body.users.map((u: { id: string }) => u.id)).toEqual(ids);
    const desc = await adminCall(server, 'GET', '/admin/users?sort=created_at+desc');
    expect(desc.body.users.map((u: { id: string }) => u.id)).toEqual([...ids].reverse());
  });

  it('every user carries its identities', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?per_page=2');
    for (const user of res.body.users) {
      expect(user.identities).toHaveLength(1);
      expect(user.identities[0].user_id).toBe(user.id);
    }
  });
});

describe('filter', () => {
  it('matches the full name or the email, in any case', async () => {
    const byName = await adminCall(server, 'GET', '/admin/users?filter=GRACE%20hop');
    expect(byName.body.users.map((u: { id: string }) => u.id)).toEqual([ids[1]]);
    expect(byName.headers.get('x-total-count')).toBe('1');
    const byEmail = await adminCall(server, 'GET', '/admin/users?filter=KNUTH5@');
    expect(byEmail.body.users.map((u: { id: string }) => u.id)).toEqual([ids[5]]);
    const several = await adminCall(server, 'GET', '/admin/users?filter=list.example&per_page=2&sort=created_at%20asc');
    expect(several.body.users.map((u: { id: string }) => u.id)).toEqual([ids[0], ids[1]]);
    expect(several.headers.get('x-total-count')).toBe('7');
    expect(several.headers.get('link')).toBe(
      '</admin/users?page=2&per_page=2&filter=list.example&sort=created_at+asc>; rel="next", ' +
        '</admin/users?page=4&per_page=2&filter=list.example&sort=created_at+asc>; rel="last"',
    );
  });

  it('treats LIKE wildcards as plain characters', async () => {
    for (const f of ['%', '_', 'a%a', '\\']) {
      const res = await adminCall(server, 'GET', `/admin/users?filter=${encodeURIComponent(f)}`);
      expect(res.status).toBe(200);
      expect(res.body.users).toEqual([]);
      expect(res.headers.get('x-total-count')).toBe('0');
    }
  });

  it('a short (one or two letter) filter works without the trigram index', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?filter=kn');
    expect(res.body.users.map((u: { id: string }) => u.id)).toEqual([ids[5]]);
  });
});

describe('provenTotal', () => {
  it('a short page ends the list; a full page only raises an estimate', () => {
    expect(provenTotal({ page: 1, perPage: 50 }, 7, 12_000)).toBe(7);
    expect(provenTotal({ page: 3, perPage: 50 }, 10, 5_000)).toBe(110);
    expect(provenTotal({ page: 1, perPage: 50 }, 0, 3)).toBe(0);
    expect(provenTotal({ page: 4, perPage: 50 }, 0, 120)).toBe(120);
    expect(provenTotal({ page: 10, perPage: 50 }, 50, 100)).toBe(500);
    expect(provenTotal({ page: 1, perPage: 50 }, 50, 1_000_000)).toBe(1_000_000);
  });
});

describe('GET /admin/audit', () => {
  it('lists audit entries newest first with paging headers', async () => {
    const target = ids[3]!;
    server.clock.advance(60);
    expect((await adminCall(server, 'PUT', `/admin/users/${target}`, { body: { role: 'reviewer' } })).status).toBe(200);
    const res = await adminCall(server, 'GET', '/admin/audit?per_page=2');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.headers.get('x-total-count')).toBe('8');
    expect(res.headers.get('link')).toBe('</admin/audit?page=2&per_page=2>; rel="next", </admin/audit?page=4&per_page=2>; rel="last"');
    const [latest, previous] = res.body;
    expect(latest).toMatchObject({
      instance_id: '00000000-0000-0000-0000-000000000000',
      payload: { action: 'user_modified', log_type: 'user', actor_id: 'admin-test', actor_username: 'service_role', traits: { user_id: target } },
      ip_address: '127.0.0.1',
    });
    expect(previous.payload).toMatchObject({ action: 'user_signedup', traits: { user_id: ids[6] } });
    expect(new Date(latest.created_at).getTime()).toBeGreaterThan(new Date(previous.created_at).getTime());
  });

  it('is admin only', async () => {
    const res = await adminCall(server, 'GET', '/admin/audit', { token: 'not-a-jwt', newShape: true });
    expect(res.status).toBe(403);
  });
});

describe('cursor mode (limit + cursor)', () => {
  type Page = { users: Array<{ id: string }>; pagination: { next_cursor?: string; has_more: boolean } };

  async function walk(query: string): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i += 1) {
      const res = await adminCall(server, 'GET', `/admin/users?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const body = res.body as Page;
      seen.push(...body.users.map((u) => u.id));
      if (!body.pagination.has_more) {
        expect(body.pagination.next_cursor).toBeUndefined();
        expect(res.headers.get('link')).toBeNull();
        return seen;
      }
      cursor = body.pagination.next_cursor;
      expect(res.headers.get('link')).toContain(`cursor=${cursor}`);
      expect(res.headers.get('link')).toMatch(/; rel="next"$/);
    }
    throw new Error('cursor walk did not end');
  }

  it('walks every user once, newest first or oldest first', async () => {
    expect(await walk('limit=3&filter=list.example')).toEqual([...ids].reverse());
    expect(await walk('limit=2&filter=list.example&sort=created_at%20asc')).toEqual(ids);
  });

  it('the first page has no total and says whether more follow', async () => {
    const res = await adminCall(server, 'GET', '/admin/users?limit=3&filter=list.example');
    expect(res.headers.get('x-total-count')).toBeNull();
    expect(res.body.pagination.has_more).toBe(true);
    expect(res.body.aud).toBe('authenticated');
    expect(res.headers.get('link')).toBe(
      `</admin/users?cursor=${res.body.pagination.next_cursor}&filter=list.example&limit=3>; rel="next"`,
    );
  });

  it('users created in the same instant are neither skipped nor repeated', async () => {
    server.clock.advance(60);
    const tied: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await adminCall(server, 'POST', '/admin/users', { body: { email: `tie${i}@tied.example` } });
      tied.push(res.body.id);
    }
    const walked = await walk('limit=1&filter=tied.example');
    expect([...walked].sort()).toEqual([...tied].sort());
    expect(new Set(walked).size).toBe(4);
    expect(await walk('limit=3&filter=tied.example&sort=created_at%20asc')).toEqual([...walked].reverse());
  });

  it.each(['cursor=nonsense', `cursor=${Buffer.from('{"id":"x","created_at":"y"}').toString('base64url')}`, 'limit=0', 'limit=x'])(
    '%s → 400 validation_failed',
    async (query) => {
      const res = await adminCall(server, 'GET', `/admin/users?${query}`, { newShape: true });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    },
  );
});
