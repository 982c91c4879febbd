// Password logins are limited per client and per account (issue 27), in PostgreSQL so every instance shares the
// count (dns.rate_limit_buckets, the token buckets of @keyzone/db): a guesser gets security.yml
// login_attempts_per_client / login_attempts_per_account per 5 minutes, then 429 with Retry-After. The account
// key is the name as typed, looked up nowhere, so known and unknown users get the same answer at the same cost.
import { pruneBuckets, takeBucketTokens } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError } from '../../errors';

const WINDOW_SECONDS = 300;
const TABLE = 'dns.rate_limit_buckets';
/** Roughly one take in this many also deletes buckets idle for a day (they are full again). */
const PRUNE_EVERY = 1000;

async function take(deps: Pick<Deps, 'db' | 'clock'>, key: string, limit: number): Promise<void> {
  if (limit <= 0) return;
  const now = deps.clock.now();
  if (Math.random() * PRUNE_EVERY < 1) await pruneBuckets(deps.db, TABLE, new Date(now.getTime() - 86_400_000));
  const ratePerSecond = limit / WINDOW_SECONDS;
  const { granted, left } = await takeBucketTokens(deps.db, TABLE, { key, ratePerSecond, burst: limit, now });
  if (granted > 0) return;
  const retryAfter = Math.max(1, Math.ceil((1 - left) / ratePerSecond));
  throw new ApiError('too_many_requests', 'Too many login attempts; try again later', undefined, { headers: { 'Retry-After': String(retryAfter) } });
}

/** Takes one login attempt for the client address and for the account named (user@group, case-insensitive). */
export async function takeLoginAttempt(deps: Pick<Deps, 'db' | 'clock' | 'config'>, input: { client: string; account: string }): Promise<void> {
  const { loginAttemptsPerClient, loginAttemptsPerAccount } = deps.config.security;
  await take(deps, `login-client:${input.client}`, loginAttemptsPerClient);
  await take(deps, `login-account:${input.account.trim().toLowerCase()}`, loginAttemptsPerAccount);
}
