// Issue 11: two tabs refreshing one token at once must not sign the user out, also with
// SECURITY_REFRESH_TOKEN_REUSE_INTERVAL=0. A request that read the token while it was live and lost
// the lock gets the winner's child; a token presented after its revocation committed is reuse.
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { claimsOf, refresh, signUp } from '../helpers/users';

let server: TestServer;
// Wall time plus an offset: a frozen clock would stamp the winner's revocation with the very
// instant the losers compare it to, which hides the race.
let offsetMs = 0;
const movingClock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  server = await startTestServer({
    env: { MAILER_AUTOCONFIRM: 'true', SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: '0' },
    configure: (deps) => ({ ...deps, clock: movingClock }),
  });
});
afterAll(async () => server?.close());

/**
 * Opens `count` keep-alive connections first, so that the burst that follows reaches the server at once:
 * "parallel" must mean concurrent at the server, not a client still opening sockets one by one on a busy
 * machine while the first refresh has long been answered.
 */
async function warmConnections(count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => call(server.url, 'GET', '/health/live')));
}

async function liveTokens(sessionId: string): Promise<string[]> {
  const rows = await server.deps.db.selectFrom('auth.refresh_tokens').select('token').where('session_id', '=', sessionId).where('revoked', '=', false).execute();
  return rows.map((r) => r.token ?? '');
}

it.each([20, 100])('%i parallel refreshes at interval 0: every 200 carries the one child, which refreshes afterwards', async (count) => {
  const account = await signUp(server.url);
  const sessionId = claimsOf(account.access_token).session_id as string;
  await warmConnections(count);
  const results = await Promise.all(Array.from({ length: count }, () => refresh(server.url, account.refresh_token)));
  expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
  const children = new Set(results.map((r) => r.body.refresh_token as string));
  expect(children.size).toBe(1);
  const [child] = [...children];
  expect(await liveTokens(sessionId)).toEqual([child]);
  const next = await refresh(server.url, child!);
  expect(next.status).toBe(200);
  // The user is still signed in with the access tokens handed out in the race.
  expect((await call(server.url, 'GET', '/user', { token: results[count - 1]!.body.access_token })).status).toBe(200);
}, 60_000);

it('the parent presented again 1 s after the race is reuse: 400 and the session is revoked', async () => {
  const account = await signUp(server.url);
  const sessionId = claimsOf(account.access_token).session_id as string;
  await warmConnections(20);
  const results = await Promise.all(Array.from({ length: 20 }, () => refresh(server.url, account.refresh_token)));
  expect(results.every((r) => r.status === 200)).toBe(true);
  offsetMs += 1000;
  const reused = await refresh(server.url, account.refresh_token);
  expect(reused.status).toBe(400);
  expect(reused.body.error_code).toBe('refresh_token_already_used');
  expect(await liveTokens(sessionId)).toEqual([]);
  expect((await refresh(server.url, results[0]!.body.refresh_token)).status).toBe(400);
});
