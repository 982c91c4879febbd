// Housekeeping deletes what can never be used again, in batches (here 2 rows per statement, so the loop runs),
// and leaves everything still usable alone.
import { randomUUID } from 'node:crypto';
import { runHousekeeping } from '../src/services/platform/housekeeping';
import { startTestServer, type TestServer } from './helpers/server';
import { signUp } from './helpers/users';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', DB_CLEANUP_BATCH_SIZE: '2' } });
}, 60_000);
afterAll(() => server?.close());

it('deletes expired codes, flows, old revoked refresh tokens, ended sessions and old MFA challenges, in batches', async () => {
  const db = server.deps.db;
  const now = server.clock.now();
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const later = new Date(now.getTime() + 3_600_000);
  const user = (await signUp(server.url)).user as { id: string };
  const sessions = await db.selectFrom('auth.sessions').select('id').where('user_id', '=', user.id).execute();
  const live = sessions[0]!.id;

  const types = ['confirmation_token', 'recovery_token', 'reauthentication_token', 'email_change_token_new', 'email_change_token_current'] as const;
  for (const [i, type] of types.entries()) {
    await db.insertInto('auth.one_time_tokens').values({
      user_id: user.id, token_type: type, token_hash: `h${i}`, relates_to: 'x', created_at: i < 4 ? ago(200_000) : now, updated_at: i < 4 ? ago(200_000) : now,
    } as never).execute();
  }
  for (let i = 0; i < 5; i += 1) {
    await db.insertInto('auth.flow_state').values({
      id: randomUUID(), provider_type: 'github', authentication_method: 'oauth', created_at: i < 3 ? ago(3600) : now, updated_at: now,
    } as never).execute();
  }
  const ended = randomUUID();
  await db.insertInto('auth.sessions').values({ id: ended, user_id: user.id, aal: 'aal1', not_after: ago(1), created_at: ago(7200), updated_at: ago(7200) } as never).execute();
  await db.insertInto('auth.sessions').values({ id: randomUUID(), user_id: user.id, aal: 'aal1', not_after: later, created_at: now, updated_at: now } as never).execute();
  for (let i = 0; i < 3; i += 1) {
    await db.insertInto('auth.refresh_tokens').values({ token: `old-revoked-${i}`, user_id: user.id, session_id: live, revoked: true, created_at: ago(200_000), updated_at: ago(200_000) } as never).execute();
  }
  await db.insertInto('auth.refresh_tokens').values({ token: 'recent-revoked', user_id: user.id, session_id: live, revoked: true, created_at: ago(60), updated_at: ago(60) } as never).execute();
  const factor = randomUUID();
  await db.insertInto('auth.mfa_factors').values({ id: factor, user_id: user.id, factor_type: 'totp', status: 'unverified', secret: 'S', created_at: now, updated_at: now } as never).execute();
  await db.insertInto('auth.mfa_challenges').values({ id: randomUUID(), factor_id: factor, ip_address: '127.0.0.1', created_at: ago(200_000) } as never).execute();
  await db.insertInto('auth.mfa_challenges').values({ id: randomUUID(), factor_id: factor, ip_address: '127.0.0.1', created_at: now } as never).execute();

  expect(await runHousekeeping(server.deps)).toEqual({ oneTimeTokens: 4, flowStates: 3, refreshTokens: 3, sessions: 1, mfaChallenges: 1, samlRelayStates: 0, samlAssertions: 0, webauthnChallenges: 0, oauthAuthorizations: 0, web3Nonces: 0 });
  expect(await runHousekeeping(server.deps)).toEqual({ oneTimeTokens: 0, flowStates: 0, refreshTokens: 0, sessions: 0, mfaChallenges: 0, samlRelayStates: 0, samlAssertions: 0, webauthnChallenges: 0, oauthAuthorizations: 0, web3Nonces: 0 });

  const count = async (table: 'auth.one_time_tokens' | 'auth.flow_state' | 'auth.mfa_challenges') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  expect(await count('auth.one_time_tokens')).toBe(1);
  expect(await count('auth.flow_state')).toBe(2);
  expect(await count('auth.mfa_challenges')).toBe(1);
  expect(await db.selectFrom('auth.sessions').select('id').where('id', '=', ended).executeTakeFirst()).toBeUndefined();
  expect(await db.selectFrom('auth.sessions').select('id').where('id', '=', live).executeTakeFirst()).toBeDefined();
  const tokens = (await db.selectFrom('auth.refresh_tokens').select('token').where('user_id', '=', user.id).execute()).map((r) => r.token).sort();
  expect(tokens).toContain('recent-revoked');
  expect(tokens.some((t) => t?.startsWith('old-revoked'))).toBe(false);
});
