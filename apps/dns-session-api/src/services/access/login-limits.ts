// Password logins are limited in PostgreSQL, so every instance shares the count (dns.rate_limit_buckets, the token
// buckets of @keyzone/db). Failed logins count per client address and per account (security.yml
// login_attempts_per_client, login_attempts_per_account per 5 minutes): what a guesser gets. Every login, failed or
// not, counts per client address against the much larger logins_per_client, so a script that signs in before each
// run, or an office behind one NAT, is not locked out (issue 38), while the password checks one address can make
// stay bounded. Over a limit: 429 with Retry-After. The account key is the name as typed, looked up nowhere, so
// known and unknown users get the same answer at the same cost.
//
// A failure is known only after the password check, so each attempt takes its tokens first (parallel guesses cannot
// all pass a check made before any of them is counted) and a successful one gives back the tokens it took from the
// failure buckets: exactly its own, so a guesser's own good logins do not buy more guesses.
import { pruneBuckets, takeBucketTokens } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError } from '../../errors';

const WINDOW_SECONDS = 300;
const TABLE = 'dns.rate_limit_buckets';
/** Roughly one take in this many also deletes buckets idle for a day (they are full again). */
const PRUNE_EVERY = 1000;

type LimitDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

interface Bucket {
  key: string;
  /** tokens per WINDOW_SECONDS, and the bucket's size */
  limit: number;
  /** whether a successful login gives its token back (it counts failures only) */
  failuresOnly: boolean;
}

const bucketParams = (deps: LimitDeps, bucket: Bucket) =>
  ({ key: bucket.key, ratePerSecond: bucket.limit / WINDOW_SECONDS, burst: bucket.limit, now: deps.clock.now() });

/** Takes one token; the seconds until one is there again when the bucket is empty. */
async function take(deps: LimitDeps, bucket: Bucket): Promise<number | undefined> {
  const params = bucketParams(deps, bucket);
  const { granted, left } = await takeBucketTokens(deps.db, TABLE, params);
  return granted > 0 ? undefined : Math.max(1, Math.ceil((1 - left) / params.ratePerSecond));
}

/** Gives one token back to each bucket (a lease of none with one returned: a single statement each). */
async function giveBack(deps: LimitDeps, buckets: readonly Bucket[]): Promise<void> {
  for (const bucket of buckets) await takeBucketTokens(deps.db, TABLE, bucketParams(deps, bucket), 0, 1);
}

export interface LoginAttempt {
  /** The credentials were right: the attempt stops counting as a failure. */
  succeeded(): Promise<void>;
}

/**
 * Takes one login attempt for the client address and for the account named (user@group, case-insensitive) before
 * the password is checked; call `succeeded()` once it was right. An attempt refused here counts against nothing.
 */
export async function takeLoginAttempt(deps: LimitDeps, input: { client: string; account: string }): Promise<LoginAttempt> {
  const { loginsPerClient, loginAttemptsPerClient, loginAttemptsPerAccount } = deps.config.security;
  const buckets: Bucket[] = [
    { key: `login-any-client:${input.client}`, limit: loginsPerClient, failuresOnly: false },
    { key: `login-client:${input.client}`, limit: loginAttemptsPerClient, failuresOnly: true },
    { key: `login-account:${input.account.trim().toLowerCase()}`, limit: loginAttemptsPerAccount, failuresOnly: true },
  ].filter((b) => b.limit > 0);
  if (buckets.length > 0 && Math.random() * PRUNE_EVERY < 1) {
    await pruneBuckets(deps.db, TABLE, new Date(deps.clock.now().getTime() - 86_400_000));
  }
  const taken: Bucket[] = [];
  for (const bucket of buckets) {
    const retryAfter = await take(deps, bucket);
    if (retryAfter !== undefined) {
      await giveBack(deps, taken);
      throw new ApiError('too_many_requests', 'Too many login attempts; try again later', undefined, { headers: { 'Retry-After': String(retryAfter) } });
    }
    taken.push(bucket);
  }
  return { succeeded: () => giveBack(deps, taken.filter((b) => b.failuresOnly)) };
}
