// MFA recovery codes as auth-js 2.119 calls them (mfa.recoveryCodes): a factor of type recovery_code (it shows in
// user.factors) holding RECOVERY_CODE_COUNT one-time codes.
//   GET    /factors/recovery-codes             {id, type, total, remaining}, at any AAL
//   POST   /factors/recovery-codes             {friendly_name?} → {id, type, friendly_name, total, codes}, AAL2 only,
//                                              never the user's only factor, one set per user
//   POST   /factors/recovery-codes/regenerate  a new set (the old codes stop working; the lockout is cleared), AAL2
//   POST   /factors/recovery-codes/verify      {code} → a session at AAL2 (amr mfa/recovery_code), each code once
//   DELETE /factors/recovery-codes             {id}, AAL2
// Codes are shown once and stored as SHA-256: each is 16 characters from a 32-letter alphabet (80 random bits), so
// there is no dictionary to try against a leaked hash and a slow password hash would add nothing. The 5th wrong code
// (MFA's attempt limit) locks verification for RECOVERY_LOCK_SECONDS; the routes also carry the MFA request limits.
import { createHash, randomBytes } from 'node:crypto';
import { newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { findIdentitiesByUserId } from '../../queries/identities';
import {
  deleteFactor, deleteOtherSessionsBelowAal2, downgradeSessionsOfFactor, findFactorsByUserId, insertFactor, raiseSessionToAal2,
  revokeSessionRefreshTokens, updateFactor,
} from '../../queries/mfa';
import {
  countRecoveryCodes, deleteRecoveryCodes, findLoneRecoveryFactor, findRecoveryFactor, findRecoveryFactorForUpdate, insertRecoveryCodes,
  recordWrongRecoveryCode, resetRecoveryLock, useRecoveryCode,
} from '../../queries/mfa-recovery-codes';
import type { Executor } from '../../queries/users';
import { countPasskeys } from '../../queries/passkeys';
import { insertRefreshToken } from '../../queries/refresh-tokens';
import { findAmrClaims, recordAmr } from '../../queries/sessions';
import { findUserById } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { mfaVerificationAttempt } from '../hooks/verification-attempts';
import { audit, AuditAction } from '../platform/audit';
import type { SignedInCaller } from '../platform/context';
import { tokenResponse } from '../sessions/access-token';
import { isUniqueViolation } from '@keyzone/db';

export const RECOVERY_CODE_COUNT = 10;
/** The amr entry of a session a recovery code raised (auth-js 2.119's AMRMethod). */
export const RECOVERY_CODE_AMR = 'mfa/recovery_code';
const CODE_LENGTH = 16;
/** 32 letters (no i, l, o, u: nothing to misread), so each character is 5 unbiased bits of a random byte. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Wrong codes before a lockout: MFA's limit for a challenge (services/mfa/factors.ts). */
const MAX_WRONG_CODES = 5;
export const RECOVERY_LOCK_SECONDS = 900;
const DEFAULT_NAME = 'Recovery codes';

export interface RecoveryCodesJson {
  id: string;
  type: 'recovery_code';
  friendly_name: string;
  total: number;
  codes: string[];
}

/** What the user typed, as the codes are kept: letter case, whitespace and '-' separators do not count. */
export function canonicalCode(typed: string): string {
  return typed.toLowerCase().replace(/[\s-]+/g, '');
}

const hashCode = (code: string): string => createHash('sha256').update(code).digest('hex');

function newCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => Array.from(randomBytes(CODE_LENGTH), (byte) => ALPHABET[byte & 31]).join(''));
}

const notFound = () => new ApiError(404, ErrorCode.mfa_factor_not_found, 'Recovery codes not found');
const aal2 = (caller: SignedInCaller): boolean => caller.session?.aal === 'aal2';

function enrollEnabled(deps: Pick<Deps, 'config'>): void {
  if (!deps.config.mfa.recoveryCodes.enrollEnabled) {
    throw new ApiError(422, ErrorCode.mfa_recovery_codes_enroll_not_enabled, 'MFA enroll is disabled for recovery codes');
  }
}

export async function recoveryCodesStatus(deps: Pick<Deps, 'db'>, caller: SignedInCaller): Promise<{ id: string; type: 'recovery_code'; total: number; remaining: number }> {
  const factor = await findRecoveryFactor(deps.db, caller.user.id);
  if (!factor) throw notFound();
  return { id: factor.id, type: 'recovery_code', ...(await countRecoveryCodes(deps.db, factor.id)) };
}

export async function generateRecoveryCodes(deps: Deps, caller: SignedInCaller, input: { friendlyName?: string }): Promise<RecoveryCodesJson> {
  enrollEnabled(deps);
  if (caller.user.is_anonymous) throw new ApiError(403, ErrorCode.no_authorization, 'Anonymous users cannot enroll MFA factors');
  if (!aal2(caller)) throw new ApiError(403, ErrorCode.insufficient_aal, 'AAL2 required to generate recovery codes');
  const friendlyName = input.friendlyName?.trim() || DEFAULT_NAME;
  const now = deps.clock.now();
  const codes = newCodes();
  const factor = await deps.db.transaction().execute(async (tx) => {
    // One enrollment at a time per user (as enrollFactor): the checks below hold until commit.
    await tx.selectFrom('auth.users').select('id').where('id', '=', caller.user.id).forUpdate().execute();
    const factors = await findFactorsByUserId(tx, caller.user.id);
    if (factors.some((f) => f.factor_type === 'recovery_code')) {
      throw new ApiError(422, ErrorCode.mfa_verified_factor_exists, 'Recovery codes already exist: regenerate them to get a new set');
    }
    const others = factors.filter((f) => f.status === 'verified').length + (await countPasskeys(tx, caller.user.id));
    if (others === 0) throw new ApiError(422, ErrorCode.mfa_recovery_codes_sole_factor, 'Recovery codes cannot be the only factor: verify another factor first');
    if (factors.some((f) => f.friendly_name === friendlyName)) {
      throw new ApiError(422, ErrorCode.mfa_factor_name_conflict, `A factor with the friendly name "${friendlyName}" for this user already exists`);
    }
    const created = await insertFactor(tx, { userId: caller.user.id, type: 'recovery_code', friendlyName, secret: null, phone: null, at: now });
    await updateFactor(tx, created.id, { status: 'verified' }, now);
    await insertRecoveryCodes(tx, created.id, codes.map(hashCode), now);
    await audit(tx, {
      actor: caller.user, action: AuditAction.userModified, client: caller.client, at: now,
      traits: { factor_id: created.id, factor_type: 'recovery_code', action: 'recovery_codes_generated' },
    });
    return created;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.mfa_factor_name_conflict, 'A factor with this friendly name already exists');
    throw err;
  });
  return { id: factor.id, type: 'recovery_code', friendly_name: friendlyName, total: codes.length, codes };
}

export async function regenerateRecoveryCodes(deps: Deps, caller: SignedInCaller): Promise<RecoveryCodesJson> {
  enrollEnabled(deps);
  if (!aal2(caller)) throw new ApiError(403, ErrorCode.insufficient_aal, 'AAL2 required to regenerate recovery codes');
  const now = deps.clock.now();
  const codes = newCodes();
  const factor = await deps.db.transaction().execute(async (tx) => {
    const found = await findRecoveryFactorForUpdate(tx, caller.user.id);
    if (!found) throw notFound();
    await deleteRecoveryCodes(tx, found.id);
    await insertRecoveryCodes(tx, found.id, codes.map(hashCode), now);
    await resetRecoveryLock(tx, found.id);
    await audit(tx, {
      actor: caller.user, action: AuditAction.userModified, client: caller.client, at: now,
      traits: { factor_id: found.id, factor_type: 'recovery_code', action: 'recovery_codes_regenerated' },
    });
    return found;
  });
  return { id: factor.id, type: 'recovery_code', friendly_name: factor.friendly_name ?? DEFAULT_NAME, total: codes.length, codes };
}

/** POST /factors/recovery-codes/verify {code}: uses one code and raises the session to AAL2, as a factor verification. */
export async function verifyRecoveryCode(deps: Deps, caller: SignedInCaller, typed: string | undefined): Promise<TokenResponseJson> {
  if (!deps.config.mfa.recoveryCodes.verifyEnabled) {
    throw new ApiError(422, ErrorCode.mfa_recovery_codes_verify_not_enabled, 'MFA verification is disabled for recovery codes');
  }
  const session = caller.session;
  if (!session) throw new ApiError(401, ErrorCode.session_not_found, 'Verifying a recovery code requires a session');
  const code = canonicalCode(typed ?? '');
  const now = deps.clock.now();
  let wrongCodeOf: string | undefined;
  const method = RECOVERY_CODE_AMR;
  const result = await deps.db.transaction().execute(async (tx) => {
    const factor = await findRecoveryFactorForUpdate(tx, caller.user.id);
    if (!factor) throw notFound();
    if (factor.recovery_locked_until && new Date(factor.recovery_locked_until).getTime() > now.getTime()) {
      throw new ApiError(429, ErrorCode.mfa_recovery_codes_locked, 'Too many wrong recovery codes: verification is locked for a while, or use another factor');
    }
    const valid = /^[0-9a-z]{16}$/.test(code) && (await useRecoveryCode(tx, factor.id, hashCode(code), now));
    if (deps.config.hooks.mfaVerificationAttempt) {
      await mfaVerificationAttempt(deps, { userId: caller.user.id, factorId: factor.id, factorType: 'recovery_code', valid });
    }
    if (!valid) {
      wrongCodeOf = factor.id;
      throw new ApiError(422, ErrorCode.mfa_verification_failed, 'Invalid recovery code entered');
    }
    await resetRecoveryLock(tx, factor.id);
    await raiseSessionToAal2(tx, session.id, factor.id, now);
    await recordAmr(tx, session.id, method, now);
    await deleteOtherSessionsBelowAal2(tx, caller.user.id, session.id);
    await revokeSessionRefreshTokens(tx, session.id, now);
    const refreshToken = newRefreshToken();
    await insertRefreshToken(tx, { token: refreshToken, user_id: caller.user.id, session_id: session.id, parent: null, at: now });
    await audit(tx, { actor: caller.user, action: AuditAction.login, client: caller.client, at: now, traits: { factor_id: factor.id, factor_type: 'recovery_code' } });
    const amr = (await findAmrClaims(tx, session.id)).map((a) => ({ method: a.authentication_method, timestamp: Math.floor(new Date(a.updated_at).getTime() / 1000) }));
    return { refreshToken, amr, user: (await findUserById(tx, caller.user.id)) as UserRow };
  }).catch(async (err: unknown) => {
    // Counted after the rollback, so the count sticks.
    if (wrongCodeOf) await recordWrongRecoveryCode(deps.db, wrongCodeOf, MAX_WRONG_CODES, new Date(now.getTime() + RECOVERY_LOCK_SECONDS * 1000));
    throw err;
  });
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: { id: session.id, aal: 'aal2' },
    amr: result.amr,
    refreshToken: result.refreshToken,
    method,
  });
}

/** DELETE /factors/recovery-codes: the factor and its codes go; sessions it raised drop to AAL1. */
export async function deleteRecoveryCodesFactor(deps: Deps, caller: SignedInCaller): Promise<{ id: string }> {
  if (!aal2(caller)) throw new ApiError(422, ErrorCode.insufficient_aal, 'AAL2 required to unenroll verified factor');
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const factor = await findRecoveryFactorForUpdate(tx, caller.user.id);
    if (!factor) throw notFound();
    await downgradeSessionsOfFactor(tx, factor.id, RECOVERY_CODE_AMR, now);
    await deleteFactor(tx, factor.id);
    await audit(tx, {
      actor: caller.user, action: AuditAction.userModified, client: caller.client, at: now,
      traits: { factor_id: factor.id, factor_type: 'recovery_code', action: 'factor_unenrolled' },
    });
    return { id: factor.id };
  });
}

/**
 * Recovery codes are never the only factor: when the last other verified factor or passkey goes (the user or an
 * admin removing it), the codes go too, in the same transaction, and the sessions they raised drop to AAL1.
 */
export async function dropLoneRecoveryCodes(tx: Executor, userId: string, at: Date): Promise<void> {
  const lone = await findLoneRecoveryFactor(tx, userId);
  if (!lone) return;
  await downgradeSessionsOfFactor(tx, lone, RECOVERY_CODE_AMR, at);
  await deleteFactor(tx, lone);
}
