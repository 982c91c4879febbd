// SQL for auth.mfa_factors and auth.mfa_challenges, and the session changes a verified factor brings.
import { randomUUID } from 'node:crypto';
import type { FactorType } from '@keyzone/db';
import type { Executor } from './users';

export interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: FactorType;
  status: 'unverified' | 'verified';
  created_at: Date | string;
  updated_at: Date | string;
  secret: string | null;
  phone: string | null;
  last_challenged_at: Date | string | null;
  last_totp_step: string | number | null;
  /** A WebAuthn factor's credential, once its registration was verified. */
  web_authn_credential: StoredWebAuthnCredential | null;
  web_authn_aaguid: string | null;
}

/** A WebAuthn credential as kept (base64url binary), for the factor and for passkeys alike. */
export interface StoredWebAuthnCredential {
  id: string;
  public_key: string;
  sign_count: number;
  transports: string[];
}

const factorColumns = [
  'id', 'user_id', 'friendly_name', 'factor_type', 'status', 'created_at', 'updated_at', 'secret', 'phone', 'last_challenged_at', 'last_totp_step',
  'web_authn_credential', 'web_authn_aaguid',
] as const;

export interface ChallengeRow {
  id: string;
  factor_id: string;
  created_at: Date | string;
  verified_at: Date | string | null;
  ip_address: string;
  otp_code: string | null;
  /** A WebAuthn challenge: what the ceremony must answer. */
  web_authn_session_data: WebAuthnSessionData | null;
}

export interface WebAuthnSessionData {
  type: 'create' | 'request';
  challenge: string;
}

export async function findFactorsByUserId(db: Executor, userId: string): Promise<FactorRow[]> {
  return (await db.selectFrom('auth.mfa_factors').select(factorColumns).where('user_id', '=', userId).orderBy('created_at').execute()) as FactorRow[];
}

/** The user's factor, locked for the verification or unenroll that reads it. */
export async function findFactorForUpdate(db: Executor, userId: string, factorId: string): Promise<FactorRow | undefined> {
  return (await db
    .selectFrom('auth.mfa_factors')
    .select(factorColumns)
    .where('id', '=', factorId)
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst()) as FactorRow | undefined;
}

/** Unverified factors never challenged and older than `before` are abandoned enrollments. */
export async function purgeAbandonedFactors(db: Executor, userId: string, before: Date): Promise<void> {
  await db
    .deleteFrom('auth.mfa_factors')
    .where('user_id', '=', userId)
    .where('status', '=', 'unverified')
    .where('last_challenged_at', 'is', null)
    .where('created_at', '<', before)
    .execute();
}

export async function insertFactor(
  db: Executor,
  input: { userId: string; type: FactorType; friendlyName: string | null; secret: string | null; phone: string | null; at: Date },
): Promise<FactorRow> {
  return (await db
    .insertInto('auth.mfa_factors')
    .values({
      id: randomUUID(), user_id: input.userId, friendly_name: input.friendlyName, factor_type: input.type, status: 'unverified',
      secret: input.secret, phone: input.phone, created_at: input.at, updated_at: input.at,
    } as never)
    .returning(factorColumns)
    .executeTakeFirstOrThrow()) as FactorRow;
}

export async function updateFactor(
  db: Executor,
  factorId: string,
  changes: Partial<Pick<FactorRow, 'friendly_name' | 'phone' | 'status' | 'last_totp_step' | 'last_challenged_at' | 'web_authn_credential' | 'web_authn_aaguid'>>,
  at: Date,
): Promise<FactorRow | undefined> {
  const { web_authn_credential: credential, ...rest } = changes;
  return (await db
    .updateTable('auth.mfa_factors')
    .set({ ...rest, ...(credential !== undefined ? { web_authn_credential: credential && JSON.stringify(credential) } : {}), updated_at: at } as never)
    .where('id', '=', factorId)
    .returning(factorColumns)
    .executeTakeFirst()) as FactorRow | undefined;
}

export async function deleteFactor(db: Executor, factorId: string): Promise<void> {
  await db.deleteFrom('auth.mfa_factors').where('id', '=', factorId).execute();
}

/** After a factor is verified: the user's other unverified factors of its type are dropped. */
export async function deleteUnverifiedFactorsOfType(db: Executor, userId: string, type: FactorType, except: string): Promise<void> {
  await db
    .deleteFrom('auth.mfa_factors')
    .where('user_id', '=', userId)
    .where('factor_type', '=', type)
    .where('status', '=', 'unverified')
    .where('id', '!=', except)
    .execute();
}

const challengeColumns = ['id', 'factor_id', 'created_at', 'verified_at', 'ip_address', 'otp_code', 'web_authn_session_data'] as const;

export async function insertChallenge(
  db: Executor,
  input: { factorId: string; ip: string; otpHash: string | null; webauthn?: WebAuthnSessionData; at: Date },
): Promise<ChallengeRow> {
  return (await db
    .insertInto('auth.mfa_challenges')
    .values({
      id: randomUUID(), factor_id: input.factorId, ip_address: input.ip, otp_code: input.otpHash, created_at: input.at,
      web_authn_session_data: input.webauthn ? JSON.stringify(input.webauthn) : null,
    } as never)
    .returning(challengeColumns)
    .executeTakeFirstOrThrow()) as ChallengeRow;
}

export async function findChallengeForUpdate(db: Executor, factorId: string, challengeId: string): Promise<ChallengeRow | undefined> {
  return (await db
    .selectFrom('auth.mfa_challenges')
    .select(challengeColumns)
    .where('id', '=', challengeId)
    .where('factor_id', '=', factorId)
    .forUpdate()
    .executeTakeFirst()) as ChallengeRow | undefined;
}

export async function markChallengeVerified(db: Executor, challengeId: string, at: Date): Promise<void> {
  await db.updateTable('auth.mfa_challenges').set({ verified_at: at } as never).where('id', '=', challengeId).execute();
}

/** The session reached AAL2 with this factor. */
export async function raiseSessionToAal2(db: Executor, sessionId: string, factorId: string, at: Date): Promise<void> {
  await db.updateTable('auth.sessions').set({ aal: 'aal2', factor_id: factorId, updated_at: at } as never).where('id', '=', sessionId).execute();
}

/** The user's other sessions that have not reached AAL2 end (their refresh tokens and AMR claims cascade). */
export async function deleteOtherSessionsBelowAal2(db: Executor, userId: string, keep: string): Promise<void> {
  await db
    .deleteFrom('auth.sessions')
    .where('user_id', '=', userId)
    .where('id', '!=', keep)
    .where((eb) => eb.or([eb('aal', 'is', null), eb('aal', '!=', 'aal2')]))
    .execute();
}

/** The session's refresh tokens are revoked: an AAL1 token must not mint AAL2 access tokens. */
export async function revokeSessionRefreshTokens(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.updateTable('auth.refresh_tokens').set({ revoked: true, updated_at: at } as never).where('session_id', '=', sessionId).where('revoked', '=', false).execute();
}

/** A wrong code for a challenge: counted (outside the failed verify's transaction); at `burnAt` the challenge is deleted. */
export async function recordWrongChallengeCode(db: Executor, challengeId: string, burnAt: number): Promise<void> {
  const row = await db
    .updateTable('auth.mfa_challenges')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }) as never)
    .where('id', '=', challengeId)
    .returning('failed_attempts')
    .executeTakeFirst();
  if (row && Number(row.failed_attempts) >= burnAt) await db.deleteFrom('auth.mfa_challenges').where('id', '=', challengeId).execute();
}

/**
 * A removed factor no longer vouches for any session: those it raised to AAL2 drop to AAL1 and lose its AMR
 * entry, so their next refresh carries aal1 (GoTrue downgrades them likewise). Their refresh tokens stay valid.
 */
export async function downgradeSessionsOfFactor(db: Executor, factorId: string, amrMethod: string, at: Date): Promise<void> {
  const sessions = await db
    .updateTable('auth.sessions')
    .set({ aal: 'aal1', factor_id: null, updated_at: at } as never)
    .where('factor_id', '=', factorId)
    .returning('id')
    .execute();
  if (sessions.length === 0) return;
  await db
    .deleteFrom('auth.mfa_amr_claims')
    .where('session_id', 'in', sessions.map((s) => s.id))
    .where('authentication_method', '=', amrMethod)
    .execute();
}
