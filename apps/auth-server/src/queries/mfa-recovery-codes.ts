// SQL for MFA recovery codes: auth.mfa_recovery_codes (one row per code, SHA-256 of its canonical form) and the
// lockout counters on the recovery_code factor (auth.mfa_factors.recovery_failed_attempts / recovery_locked_until).
import { sql } from 'kysely';
import type { Executor } from './users';

export interface RecoveryFactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  recovery_failed_attempts: number;
  recovery_locked_until: Date | string | null;
}

/** The user's recovery codes factor (at most one), locked for the rest of the transaction. */
export async function findRecoveryFactorForUpdate(db: Executor, userId: string): Promise<RecoveryFactorRow | undefined> {
  return db.selectFrom('auth.mfa_factors')
    .select(['id', 'user_id', 'friendly_name', 'recovery_failed_attempts', 'recovery_locked_until'])
    .where('user_id', '=', userId).where('factor_type', '=', 'recovery_code')
    .forUpdate().executeTakeFirst();
}

export async function findRecoveryFactor(db: Executor, userId: string): Promise<RecoveryFactorRow | undefined> {
  return db.selectFrom('auth.mfa_factors')
    .select(['id', 'user_id', 'friendly_name', 'recovery_failed_attempts', 'recovery_locked_until'])
    .where('user_id', '=', userId).where('factor_type', '=', 'recovery_code')
    .executeTakeFirst();
}

export async function insertRecoveryCodes(db: Executor, factorId: string, hashes: string[], at: Date): Promise<void> {
  await db.insertInto('auth.mfa_recovery_codes').values(hashes.map((code_hash) => ({ factor_id: factorId, code_hash, created_at: at }))).execute();
}

export async function deleteRecoveryCodes(db: Executor, factorId: string): Promise<void> {
  await db.deleteFrom('auth.mfa_recovery_codes').where('factor_id', '=', factorId).execute();
}

export async function countRecoveryCodes(db: Executor, factorId: string): Promise<{ total: number; remaining: number }> {
  const row = await db.selectFrom('auth.mfa_recovery_codes')
    .select([sql<string>`count(*)`.as('total'), sql<string>`count(*) filter (where used_at is null)`.as('remaining')])
    .where('factor_id', '=', factorId).executeTakeFirst();
  return { total: Number(row?.total ?? 0), remaining: Number(row?.remaining ?? 0) };
}

/** Uses a code: marks it used when it is the factor's and unused; one statement, so a code works once. */
export async function useRecoveryCode(db: Executor, factorId: string, codeHash: string, at: Date): Promise<boolean> {
  const row = await db.updateTable('auth.mfa_recovery_codes').set({ used_at: at })
    .where('factor_id', '=', factorId).where('code_hash', '=', codeHash).where('used_at', 'is', null)
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Counts a wrong code; the `lockAt`-th locks verification until `lockUntil` and starts the count again. */
export async function recordWrongRecoveryCode(db: Executor, factorId: string, lockAt: number, lockUntil: Date): Promise<void> {
  await db.updateTable('auth.mfa_factors').set({
    recovery_locked_until: sql`case when recovery_failed_attempts + 1 >= ${lockAt} then ${lockUntil}::timestamptz else recovery_locked_until end`,
    recovery_failed_attempts: sql`case when recovery_failed_attempts + 1 >= ${lockAt} then 0 else recovery_failed_attempts + 1 end`,
  }).where('id', '=', factorId).execute();
}

export async function resetRecoveryLock(db: Executor, factorId: string): Promise<void> {
  await db.updateTable('auth.mfa_factors').set({ recovery_failed_attempts: 0, recovery_locked_until: null }).where('id', '=', factorId).execute();
}

/** The user's recovery codes factor when nothing else guards the account: no other verified factor, no passkey. */
export async function findLoneRecoveryFactor(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('auth.mfa_factors as f').select('f.id')
    .where('f.user_id', '=', userId).where('f.factor_type', '=', 'recovery_code')
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('auth.mfa_factors as o').select('o.id')
        .where('o.user_id', '=', userId).where('o.factor_type', '!=', 'recovery_code').where('o.status', '=', 'verified'))))
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('auth.webauthn_credentials as w').select('w.id').where('w.user_id', '=', userId))))
    .executeTakeFirst();
  return row?.id;
}
