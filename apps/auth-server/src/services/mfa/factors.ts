// Multi-factor authentication (reference §1.4.15): enroll a TOTP or phone factor, challenge it, verify the
// challenge (the session reaches AAL2, the factor becomes verified, the user's other sessions below AAL2
// end), unenroll; and the rule that a user with a verified factor changes email, phone or password only
// from an AAL2 session.
import { createHash } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import { constantTimeEqual, numericOtp, newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { matchingStep, newTotpSecret, otpauthUri, qrCodeSvg } from './totp';
import type { SessionRow, UserRow } from '../../queries/columns';
import { findIdentitiesByUserId } from '../../queries/identities';
import {
  deleteFactor, deleteOtherSessionsBelowAal2, deleteUnverifiedFactorsOfType, findChallengeForUpdate, findFactorForUpdate,
  findFactorsByUserId, insertChallenge, insertFactor, markChallengeVerified, purgeAbandonedFactors, raiseSessionToAal2,
  recordWrongChallengeCode, downgradeSessionsOfFactor, revokeSessionRefreshTokens, updateFactor, type FactorRow,
} from '../../queries/mfa';
import { insertRefreshToken } from '../../queries/refresh-tokens';
import { findAmrClaims, recordAmr } from '../../queries/sessions';
import { findUserById } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { SignedInCaller } from '../platform/context';
import { sendNotification } from '../email/notifications';
import { mfaVerificationAttempt } from '../hooks/verification-attempts';
import { normalizePhone } from '../sessions/sign-in';
import { deliverSms, renderSms, smsTooSoon, testOtpFor } from '../phone/sms-codes';
import { countPasskeys } from '../../queries/passkeys';
import { dropLoneRecoveryCodes, RECOVERY_CODE_AMR } from './recovery-codes';
import { verifyWebauthnAnswer, webauthnChallenge, type RequestedRelyingParty, type WebAuthnAnswer, type WebAuthnChallengeJson } from './webauthn-factor';

/** An enrollment that was never challenged is abandoned after this long. */
const ABANDONED_AFTER_SECONDS = 300;
export const AMR_OF = { totp: 'totp', phone: 'mfa/phone', webauthn: 'mfa/webauthn', recovery_code: RECOVERY_CODE_AMR } as const;

const WRONG_ANSWER = {
  totp: 'Invalid TOTP code entered', phone: 'Invalid MFA Phone code entered', webauthn: 'WebAuthn verification failed', recovery_code: 'Invalid recovery code entered',
} as const;

/** Wrong codes a challenge survives: the 5th burns it (issue 26), as for one-time codes. */
const MAX_WRONG_CODES = 5;

export type Caller = SignedInCaller;

const hashCode = (code: string): string => createHash('sha256').update(code).digest('hex');
const aal2 = (session: SessionRow | undefined): boolean => session?.aal === 'aal2';

/**
 * 401 insufficient_aal for an email, phone or password change from an AAL1 session of a user with a verified
 * factor. `factors` are the caller's, as requireUser loaded them with the user.
 */
export function requireAal2ForSensitiveChange(caller: Pick<Caller, 'session'> & { factors: readonly FactorRow[]; hasPasskey?: boolean }): void {
  if (aal2(caller.session)) return;
  if (caller.factors.some((f) => f.status === 'verified') || caller.hasPasskey) {
    throw new ApiError(401, ErrorCode.insufficient_aal, 'AAL2 session is required to update email or password when MFA is enabled.');
  }
}

export interface EnrollInput {
  factorType: string;
  friendlyName?: string;
  issuer?: string;
  phone?: string;
}

export type EnrollResult =
  | { id: string; type: 'totp'; friendly_name: string; totp: { qr_code: string; secret: string; uri: string } }
  | { id: string; type: 'phone'; friendly_name: string; phone: string }
  | { id: string; type: 'webauthn'; friendly_name: string };

const ENROLL_DISABLED = {
  totp: [ErrorCode.mfa_totp_enroll_not_enabled, 'MFA enroll is disabled for TOTP'],
  phone: [ErrorCode.mfa_phone_enroll_not_enabled, 'MFA enroll is disabled for Phone'],
  webauthn: [ErrorCode.mfa_webauthn_enroll_not_enabled, 'MFA enroll is disabled for WebAuthn'],
} as const;

export async function enrollFactor(deps: Deps, caller: Caller, input: EnrollInput): Promise<EnrollResult> {
  const { mfa } = deps.config;
  if (caller.user.is_anonymous) throw new ApiError(403, ErrorCode.no_authorization, 'Anonymous users cannot enroll MFA factors');
  if (input.factorType !== 'totp' && input.factorType !== 'phone' && input.factorType !== 'webauthn') {
    throw new ApiError(400, ErrorCode.validation_failed, 'factor_type needs to be totp, phone or webauthn');
  }
  const type = input.factorType;
  const enabled = { totp: mfa.totp.enrollEnabled, phone: mfa.phone.enrollEnabled, webauthn: deps.config.webauthn.mfaEnrollEnabled }[type];
  if (!enabled) throw new ApiError(422, ENROLL_DISABLED[type][0], ENROLL_DISABLED[type][1]);
  const phone = type === 'phone' ? normalizePhone(input.phone ?? '') : null;
  const friendlyName = input.friendlyName?.trim() || null;
  const issuer = input.issuer?.trim() || new URL(deps.config.siteUrl).hostname;
  const now = deps.clock.now();

  const factor = await deps.db.transaction().execute(async (tx) => {
    // One enrollment at a time per user: the counts below stay true until commit.
    await tx.selectFrom('auth.users').select('id').where('id', '=', caller.user.id).forUpdate().execute();
    await purgeAbandonedFactors(tx, caller.user.id, new Date(now.getTime() - ABANDONED_AFTER_SECONDS * 1000));
    const factors = await findFactorsByUserId(tx, caller.user.id);
    const verified = factors.filter((f) => f.status === 'verified');
    // A passkey is a verified factor for this rule too.
    const secured = verified.length > 0 || (await countPasskeys(tx, caller.user.id)) > 0;
    if (secured && !aal2(caller.session)) throw new ApiError(403, ErrorCode.insufficient_aal, 'AAL2 required to enroll a new factor');
    if (factors.length >= mfa.maxEnrolledFactors) {
      throw new ApiError(422, ErrorCode.too_many_enrolled_mfa_factors, 'Maximum number of enrolled factors reached, unenroll to continue');
    }
    if (verified.length >= mfa.maxVerifiedFactors) {
      throw new ApiError(422, ErrorCode.too_many_enrolled_mfa_factors, 'Maximum number of verified factors reached, unenroll to continue');
    }
    if (friendlyName && factors.some((f) => f.friendly_name === friendlyName)) {
      throw new ApiError(422, ErrorCode.mfa_factor_name_conflict, `A factor with the friendly name "${friendlyName}" for this user already exists`);
    }
    if (phone && factors.some((f) => f.phone === phone)) {
      throw new ApiError(422, ErrorCode.phone_exists, 'A phone factor with this number already exists for this user');
    }
    return insertFactor(tx, { userId: caller.user.id, type, friendlyName, secret: type === 'totp' ? newTotpSecret() : null, phone, at: now });
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.mfa_factor_name_conflict, 'A factor with this friendly name or phone already exists');
    throw err;
  });

  if (type === 'phone') return { id: factor.id, type: 'phone', friendly_name: factor.friendly_name ?? '', phone: factor.phone ?? '' };
  if (type === 'webauthn') return { id: factor.id, type: 'webauthn', friendly_name: factor.friendly_name ?? '' };
  const uri = otpauthUri({ secret: factor.secret ?? '', issuer, account: caller.user.email || caller.user.phone || caller.user.id });
  return { id: factor.id, type: 'totp', friendly_name: factor.friendly_name ?? '', totp: { qr_code: await qrCodeSvg(uri), secret: factor.secret ?? '', uri } };
}

function verifyEnabled(deps: Pick<Deps, 'config'>, factor: FactorRow): void {
  const { mfa } = deps.config;
  if (factor.factor_type === 'totp' && !mfa.totp.verifyEnabled) throw new ApiError(422, ErrorCode.mfa_totp_verify_not_enabled, 'MFA verification is disabled for TOTP');
  if (factor.factor_type === 'phone' && !mfa.phone.verifyEnabled) throw new ApiError(422, ErrorCode.mfa_phone_verify_not_enabled, 'MFA verification is disabled for Phone');
  if (factor.factor_type === 'webauthn' && !deps.config.webauthn.mfaVerifyEnabled) {
    throw new ApiError(422, ErrorCode.mfa_webauthn_verify_not_enabled, 'MFA verification is disabled for WebAuthn');
  }
  // Recovery codes have no challenge: services/mfa/recovery-codes.ts verifies them.
  if (factor.factor_type === 'recovery_code') throw new ApiError(422, ErrorCode.validation_failed, 'Recovery codes are verified with POST /factors/recovery-codes/verify');
}

export const notFound = (id: string) => new ApiError(404, ErrorCode.mfa_factor_not_found, `Factor ${id} not found`);

/** POST /factors/<id>/challenge: a challenge bound to the caller's IP; a phone factor gets its code by SMS. */
export async function challengeFactor(
  deps: Deps,
  caller: Caller,
  input: { factorId: string; channel?: 'sms' | 'whatsapp'; webauthn?: RequestedRelyingParty },
): Promise<{ id: string; type: string; expires_at: number; webauthn?: WebAuthnChallengeJson }> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const factor = await findFactorForUpdate(tx, caller.user.id, input.factorId);
    if (!factor) throw notFound(input.factorId);
    verifyEnabled(deps, factor);
    let otpHash: string | null = null;
    if (factor.factor_type === 'phone') {
      const { maxFrequency, otpLength, template } = deps.config.mfa.phone;
      const last = factor.last_challenged_at ? new Date(factor.last_challenged_at).getTime() : 0;
      const wait = last + maxFrequency * 1000 - now.getTime();
      if (wait > 0) throw smsTooSoon(wait / 1000);
      const phone = factor.phone ?? '';
      const fixed = testOtpFor(deps, phone, now);
      const code = fixed ?? numericOtp(otpLength);
      otpHash = hashCode(code);
      if (fixed === undefined) {
        await deliverSms(deps, tx, {
          phone, body: renderSms(template, code), otp: code, userId: caller.user.id, channel: input.channel,
          budget: { userId: caller.user.id, client: caller.client.limitKey, proven: factor.status === 'verified' },
        });
      }
    }
    const ceremony = factor.factor_type === 'webauthn' ? await webauthnChallenge(deps, factor, caller.user, input.webauthn) : undefined;
    await updateFactor(tx, factor.id, { last_challenged_at: now }, now);
    const challenge = await insertChallenge(tx, { factorId: factor.id, ip: caller.client.ip || '0.0.0.0', otpHash, webauthn: ceremony?.session, at: now });
    const expiresAt = Math.floor(now.getTime() / 1000) + deps.config.mfa.challengeExpiry;
    return { id: challenge.id, type: factor.factor_type, expires_at: expiresAt, ...(ceremony ? { webauthn: ceremony.json } : {}) };
  });
}

/** POST /factors/<id>/verify {challenge_id, code | webauthn}: the session becomes AAL2 with a new refresh token. */
export async function verifyFactor(
  deps: Deps,
  caller: Caller,
  input: { factorId: string; challengeId: string; code?: string; webauthn?: WebAuthnAnswer },
): Promise<TokenResponseJson> {
  const session = caller.session;
  if (!session) throw new ApiError(401, ErrorCode.session_not_found, 'Verifying a factor requires a session');
  const now = deps.clock.now();
  let wrongCode = false;
  const result = await deps.db.transaction().execute(async (tx) => {
    const factor = await findFactorForUpdate(tx, caller.user.id, input.factorId);
    if (!factor) throw notFound(input.factorId);
    verifyEnabled(deps, factor);
    const challenge = await findChallengeForUpdate(tx, factor.id, input.challengeId);
    // GoTrue's answers (validateChallenge): an unknown (or burned) challenge, and one already verified.
    if (!challenge) throw new ApiError(422, ErrorCode.mfa_factor_not_found, 'MFA factor with the provided challenge ID not found');
    if (challenge.verified_at) throw new ApiError(422, ErrorCode.mfa_ip_address_mismatch, 'Challenge and verify IP addresses mismatch. Try enrollment again.');
    if (new Date(challenge.created_at).getTime() + deps.config.mfa.challengeExpiry * 1000 < now.getTime()) {
      throw new ApiError(422, ErrorCode.mfa_challenge_expired,
        `MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`);
    }
    if (challenge.ip_address !== (caller.client.ip || '0.0.0.0')) {
      throw new ApiError(422, ErrorCode.mfa_ip_address_mismatch, 'Challenge and verify IP addresses mismatch. Try enrollment again.');
    }
    let step: number | undefined;
    let valid: boolean;
    let credential: Partial<Pick<FactorRow, 'web_authn_credential' | 'web_authn_aaguid'>> | undefined;
    const code = (input.code ?? '').trim();
    if (factor.factor_type === 'webauthn') {
      const verdict = await verifyWebauthnAnswer(deps, factor, challenge, input.webauthn);
      valid = verdict.valid;
      if (verdict.valid) credential = { web_authn_credential: verdict.credential, ...(verdict.aaguid ? { web_authn_aaguid: verdict.aaguid } : {}) };
    } else if (!code) {
      throw new ApiError(400, ErrorCode.validation_failed, 'code is required');
    } else if (factor.factor_type === 'totp') {
      step = matchingStep(factor.secret ?? '', code, now, factor.last_totp_step === null ? undefined : Number(factor.last_totp_step));
      valid = step !== undefined;
    } else {
      valid = challenge.otp_code !== null && constantTimeEqual(hashCode(code), challenge.otp_code);
    }
    if (deps.config.hooks.mfaVerificationAttempt) {
      await mfaVerificationAttempt(deps, { userId: caller.user.id, factorId: factor.id, factorType: factor.factor_type, valid });
    }
    if (!valid) {
      wrongCode = true;
      throw new ApiError(422, ErrorCode.mfa_verification_failed, WRONG_ANSWER[factor.factor_type]);
    }

    await markChallengeVerified(tx, challenge.id, now);
    const firstVerification = factor.status !== 'verified';
    await updateFactor(tx, factor.id, { status: 'verified', ...(step !== undefined ? { last_totp_step: step } : {}), ...credential }, now);
    if (firstVerification) await deleteUnverifiedFactorsOfType(tx, caller.user.id, factor.factor_type, factor.id);
    await raiseSessionToAal2(tx, session.id, factor.id, now);
    await recordAmr(tx, session.id, AMR_OF[factor.factor_type], now);
    await deleteOtherSessionsBelowAal2(tx, caller.user.id, session.id);
    await revokeSessionRefreshTokens(tx, session.id, now);
    const refreshToken = newRefreshToken();
    await insertRefreshToken(tx, { token: refreshToken, user_id: caller.user.id, session_id: session.id, parent: null, at: now });
    await audit(tx, { actor: caller.user, action: AuditAction.login, client: caller.client, at: now, traits: { factor_id: factor.id, factor_type: factor.factor_type } });
    const amr = (await findAmrClaims(tx, session.id)).map((a) => ({ method: a.authentication_method, timestamp: Math.floor(new Date(a.updated_at).getTime() / 1000) }));
    return { factor, firstVerification, refreshToken, amr, user: (await findUserById(tx, caller.user.id)) as UserRow };
  }).catch(async (err: unknown) => {
    // Counted after the rollback, so the count sticks; the 5th wrong code burns the challenge.
    if (wrongCode) await recordWrongChallengeCode(deps.db, input.challengeId, MAX_WRONG_CODES);
    throw err;
  });
  if (result.firstVerification) await sendNotification(deps, 'mfaFactorEnrolled', result.user.email, { FactorType: result.factor.factor_type });
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: { id: session.id, aal: 'aal2' },
    amr: result.amr,
    refreshToken: result.refreshToken,
    method: AMR_OF[result.factor.factor_type],
  });
}

/** DELETE /factors/<id>: a verified factor goes only from an AAL2 session. */
export async function unenrollFactor(deps: Deps, caller: Caller, factorId: string): Promise<{ id: string }> {
  const now = deps.clock.now();
  const removed = await deps.db.transaction().execute(async (tx) => {
    const factor = await findFactorForUpdate(tx, caller.user.id, factorId);
    if (!factor) throw notFound(factorId);
    if (factor.status === 'verified' && !aal2(caller.session)) throw new ApiError(422, ErrorCode.insufficient_aal, 'AAL2 required to unenroll verified factor');
    await downgradeSessionsOfFactor(tx, factor.id, AMR_OF[factor.factor_type], now);
    await deleteFactor(tx, factor.id);
    await dropLoneRecoveryCodes(tx, caller.user.id, now);
    await audit(tx, { actor: caller.user, action: AuditAction.userModified, client: caller.client, at: now, traits: { factor_id: factor.id, action: 'factor_unenrolled' } });
    return factor;
  });
  if (removed.status === 'verified') await sendNotification(deps, 'mfaFactorUnenrolled', caller.user.email, { FactorType: removed.factor_type });
  return { id: removed.id };
}
