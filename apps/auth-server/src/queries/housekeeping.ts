// SQL for housekeeping: each statement deletes at most `limit` rows of one kind, so a run never holds many
// locks or a long transaction; the caller repeats it until fewer come back.
import { sql } from 'kysely';
import type { Executor } from './users';

async function count(result: Promise<{ numDeletedRows: bigint }>): Promise<number> {
  return Number((await result).numDeletedRows);
}

/** One-time tokens issued before `before` (every code expires by then). */
export function deleteExpiredOneTimeTokens(db: Executor, before: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.one_time_tokens')
      .where('id', 'in', (eb) => eb.selectFrom('auth.one_time_tokens').select('id').where('updated_at', '<', before).limit(limit))
      .executeTakeFirst(),
  );
}

/** Flow states whose last step (creation or the handed-out code) is before `before`. */
export function deleteExpiredFlowStates(db: Executor, before: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.flow_state')
      .where('id', 'in', (eb) =>
        eb.selectFrom('auth.flow_state').select('id').where(sql<boolean>`coalesce(auth_code_issued_at, created_at) < ${before}`).limit(limit))
      .executeTakeFirst(),
  );
}

/** Revoked refresh tokens last touched before `before` (the reuse window is long over). */
export function deleteOldRevokedRefreshTokens(db: Executor, before: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.refresh_tokens')
      .where('id', 'in', (eb) =>
        eb.selectFrom('auth.refresh_tokens').select('id').where('revoked', '=', true).where('updated_at', '<', before).limit(limit))
      .executeTakeFirst(),
  );
}

/** Sessions past their end (not_after); their refresh tokens and AMR claims go with them. */
export function deleteEndedSessions(db: Executor, now: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.sessions')
      .where('id', 'in', (eb) => eb.selectFrom('auth.sessions').select('id').where('not_after', '<', now).limit(limit))
      .executeTakeFirst(),
  );
}

/** MFA challenges older than `before` (long expired, verified or not). */
export function deleteOldMfaChallenges(db: Executor, before: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.mfa_challenges')
      .where('id', 'in', (eb) => eb.selectFrom('auth.mfa_challenges').select('id').where('created_at', '<', before).limit(limit))
      .executeTakeFirst(),
  );
}

/** SAML relay states created before `before` (past SAML_RELAY_STATE_VALIDITY_PERIOD). */
export function deleteExpiredRelayStates(db: Executor, before: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.saml_relay_states')
      .where('id', 'in', (eb) => eb.selectFrom('auth.saml_relay_states').select('id').where('created_at', '<', before).limit(limit))
      .executeTakeFirst(),
  );
}

/** Used SAML assertion IDs past the time the assertion could be accepted at all (a replay fails on time by then). */
export async function deleteExpiredAssertionUses(db: Executor, now: Date, limit: number): Promise<number> {
  const table = sql.table('auth.saml_assertions_used');
  const result = await sql`delete from ${table} where ctid in (select ctid from ${table} where expires_at < ${now} limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Passkey ceremonies never finished, past their expiry. */
export function deleteExpiredWebauthnChallenges(db: Executor, now: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.webauthn_challenges')
      .where('id', 'in', (eb) => eb.selectFrom('auth.webauthn_challenges').select('id').where('expires_at', '<', now).limit(limit))
      .executeTakeFirst(),
  );
}

/** Web3 sign-in nonces past their expiry (never used). */
export function deleteExpiredWeb3Nonces(db: Executor, now: Date, limit: number): Promise<number> {
  return count(
    db.deleteFrom('auth.web3_nonces')
      .where('nonce', 'in', (eb) => eb.selectFrom('auth.web3_nonces').select('nonce').where('expires_at', '<', now).limit(limit))
      .executeTakeFirst(),
  );
}
