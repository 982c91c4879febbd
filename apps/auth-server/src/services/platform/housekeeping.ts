// Housekeeping (issue 18): every DB_CLEANUP_INTERVAL seconds (default 600; 0 = off; tests call it directly)
// delete what can never be used again: one-time tokens past the longest code lifetime, flow states past
// theirs, revoked refresh tokens untouched for a day, sessions past not_after, MFA challenges older than a day,
// SAML relay states past their validity, used assertion IDs past the assertion's own end, passkey ceremonies past theirs,
// OAuth authorization requests a day past theirs, Web3 sign-in nonces past theirs.
// Deletes go DB_CLEANUP_BATCH_SIZE rows at a time with a yield to the event loop in between, so requests are
// never held up; several instances may run it at once (a row is deleted once, the others find nothing).
import type { Deps } from '../../deps';
import {
  deleteEndedSessions, deleteExpiredAssertionUses, deleteExpiredFlowStates, deleteExpiredOneTimeTokens, deleteExpiredRelayStates,
  deleteExpiredWeb3Nonces, deleteExpiredWebauthnChallenges, deleteOldMfaChallenges, deleteOldRevokedRefreshTokens,
} from '../../queries/housekeeping';
import { deleteExpiredOAuthAuthorizations } from '../../queries/oauth-authorizations';
import { FLOW_STATE_TTL_SECONDS } from '../external/pkce';

const DAY_MS = 86_400_000;

export type HousekeepingCounts = Record<
  'oneTimeTokens' | 'flowStates' | 'refreshTokens' | 'sessions' | 'mfaChallenges' | 'samlRelayStates' | 'samlAssertions' | 'webauthnChallenges'
  | 'oauthAuthorizations' | 'web3Nonces', number>;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

async function inBatches(batch: number, step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await step();
    total += deleted;
    if (deleted < batch) return total;
    await yieldToRequests();
  }
}

export async function runHousekeeping(deps: Pick<Deps, 'db' | 'config' | 'clock'>): Promise<HousekeepingCounts> {
  const now = deps.clock.now();
  const batch = deps.config.db.cleanupBatchSize;
  const codeLifetime = Math.max(deps.config.mailer.otpExp, deps.config.sms.otpExp, deps.config.mfa.challengeExpiry);
  const ago = (ms: number) => new Date(now.getTime() - ms);
  return {
    oneTimeTokens: await inBatches(batch, () => deleteExpiredOneTimeTokens(deps.db, ago(codeLifetime * 1000), batch)),
    flowStates: await inBatches(batch, () => deleteExpiredFlowStates(deps.db, ago(FLOW_STATE_TTL_SECONDS * 1000), batch)),
    refreshTokens: await inBatches(batch, () => deleteOldRevokedRefreshTokens(deps.db, ago(DAY_MS), batch)),
    sessions: await inBatches(batch, () => deleteEndedSessions(deps.db, now, batch)),
    mfaChallenges: await inBatches(batch, () => deleteOldMfaChallenges(deps.db, ago(DAY_MS), batch)),
    samlRelayStates: await inBatches(batch, () => deleteExpiredRelayStates(deps.db, ago(deps.config.saml.relayStateValiditySeconds * 1000), batch)),
    samlAssertions: await inBatches(batch, () => deleteExpiredAssertionUses(deps.db, now, batch)),
    webauthnChallenges: await inBatches(batch, () => deleteExpiredWebauthnChallenges(deps.db, now, batch)),
    // A day past expiry: a used code's row is what tells a replay from a forgery until then.
    oauthAuthorizations: await inBatches(batch, () => deleteExpiredOAuthAuthorizations(deps.db, ago(DAY_MS), batch)),
    web3Nonces: await inBatches(batch, () => deleteExpiredWeb3Nonces(deps.db, now, batch)),
  };
}

/** Starts the periodic run; returns the stop function (main.ts calls it on shutdown). */
export function startHousekeeping(deps: Pick<Deps, 'db' | 'config' | 'clock' | 'log'>): () => void {
  const seconds = deps.config.db.cleanupInterval;
  if (seconds <= 0) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runHousekeeping(deps)
      .then((counts) => {
        if (Object.values(counts).some((n) => n > 0)) deps.log.info({ deleted: counts }, 'housekeeping');
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'housekeeping failed; next run in the next interval'))
      .finally(() => {
        running = false;
      });
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
