// The read-only session reader used on every route but /session (issue 12, performance): it must accept
// exactly the cookies express-session signs, refuse tampered ones, and record activity like express-session's
// touch did (at most once a minute).
import { sql } from 'kysely';
import { cookieValue, unsignSessionCookie } from '../../src/http/session-reader';
import { startTestServer, type TestServer } from '../helpers/server';

let t: TestServer;
let userId: number;

beforeAll(async () => {
  t = await startTestServer();
  ({ userId } = await t.seedUser({ group: 'reader.example', username: 'rita' }));
});
afterAll(async () => t?.close());

it('reads the cookie express-session wrote; a tampered one is no session', async () => {
  const client = await t.login('rita@reader.example');
  const raw = cookieValue(client.cookieHeader(), t.config.session.cookieName)!;
  const sid = unsignSessionCookie(raw, t.config.session.secret);
  const row = await sql<{ sid: string }>`select sid from dns.sessions where user_id = ${userId}`.execute(t.deps.db);
  expect(row.rows.map((r) => r.sid)).toEqual([sid]);
  expect(unsignSessionCookie(raw, 'another-secret-of-enough-length-000')).toBeUndefined();
  expect(unsignSessionCookie(raw.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), t.config.session.secret)).toBeUndefined();
  expect(unsignSessionCookie('%E0%A4%A', t.config.session.secret)).toBeUndefined();
  expect((await client.get(`/user/${userId}`)).status).toBe(200);
  const forged = t.client();
  forged.jar.set(t.config.session.cookieName, raw.slice(0, -3) + 'abc');
  expect((await forged.get(`/user/${userId}`)).status).toBe(401);
});

it('records activity at most once a minute', async () => {
  const client = await t.login('rita@reader.example');
  const seen = async () =>
    (await sql<{ last_seen_at: Date | null }>`select last_seen_at from dns.sessions where user_id = ${userId} order by id desc limit 1`.execute(t.deps.db)).rows[0]
      ?.last_seen_at;
  t.clock.advance(61);
  expect((await client.get(`/user/${userId}`)).status).toBe(200);
  await waitFor(async () => (await seen())?.getTime() === t.clock.now().getTime());
  const first = await seen();
  t.clock.advance(10);
  expect((await client.get(`/user/${userId}`)).status).toBe(200);
  expect(await seen()).toEqual(first);
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await condition()).toBe(true);
}
