// The password grant (reference §1.4.2). Unknown account, no password and wrong password all give
// the same 400 invalid_credentials after the same bcrypt work (a dummy hash stands in), so
// neither the answer nor its timing reveals whether the account exists.
import { randomUUID } from 'node:crypto';
import { newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import { findSignInCandidate, recordPasswordSignIn } from '../../queries/sign-in';
import type { TokenResponseJson } from '../../serialize';
import { tokenResponse } from './access-token';
import { isBanned, normalizeEmail } from './accounts';
import { auditEntry, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { comparePassword, dummyHash, weakPasswordMessage, weakPasswordReasons } from './passwords';
import { AmrMethod } from './sessions';
import { passwordVerificationAttempt } from '../hooks/verification-attempts';

const invalidCredentials = () => new ApiError(400, ErrorCode.invalid_credentials, Messages.invalidCredentials);

/** Phones are stored without '+' (reference §1.4.1). */
export function normalizePhone(raw: string): string {
  const phone = raw.replace(/[\s+\-()]/g, '');
  if (!/^[1-9][0-9]{1,14}$/.test(phone)) throw new ApiError(400, ErrorCode.validation_failed, 'Invalid phone number format (E.164 required)');
  return phone;
}

export async function passwordGrant(
  deps: Deps,
  input: { email?: string; phone?: string; password: string; client: ClientInfo },
): Promise<TokenResponseJson> {
  const { config } = deps;
  const aud = config.jwt.aud;
  let candidate;
  let provider: 'email' | 'phone';
  if (input.email) {
    if (!config.external.email.enabled) throw new ApiError(422, ErrorCode.email_provider_disabled, 'Email logins are disabled');
    provider = 'email';
    candidate = await findSignInCandidate(deps.db, 'email', normalizeEmail(input.email), aud);
  } else if (input.phone) {
    if (!config.external.phone.enabled) throw new ApiError(422, ErrorCode.phone_provider_disabled, 'Phone logins are disabled');
    provider = 'phone';
    candidate = await findSignInCandidate(deps.db, 'phone', normalizePhone(input.phone), aud);
  } else {
    throw invalidCredentials();
  }

  const hash = candidate?.encryptedPassword || (await dummyHash(config.password.bcryptCost));
  const matches = await comparePassword(input.password, hash);
  if (candidate?.encryptedPassword && config.hooks.passwordVerificationAttempt) {
    await passwordVerificationAttempt(deps, { userId: candidate.user.id, valid: matches });
  }
  if (!candidate || !candidate.encryptedPassword || !matches) throw invalidCredentials();
  const user = candidate.user;

  const now = deps.clock.now();
  if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);
  if (provider === 'email' && user.email_confirmed_at === null) {
    throw new ApiError(400, ErrorCode.email_not_confirmed, Messages.emailNotConfirmed);
  }
  if (provider === 'phone' && user.phone_confirmed_at === null) {
    throw new ApiError(400, ErrorCode.phone_not_confirmed, Messages.phoneNotConfirmed);
  }

  const signedIn = { ...user, last_sign_in_at: now, updated_at: now };
  // One statement: session, AMR claim, refresh token, last_sign_in_at (user and identity), audit row.
  const sessionId = randomUUID();
  const refreshToken = newRefreshToken();
  const identities = candidate.identities.map((i) => (i.provider === provider ? { ...i, last_sign_in_at: now, updated_at: now } : i));

  // A correct password that no longer meets the policy still signs in, with a warning (§6.6).
  const reasons = weakPasswordReasons(input.password, config.password);
  const weakPassword = reasons.length > 0 ? { message: weakPasswordMessage(reasons, config.password), reasons } : undefined;
  // The answer is built first: when the custom access token hook refuses, no session is recorded either.
  const body = await tokenResponse(deps, {
    user: signedIn,
    identities,
    factors: candidate.factors,
    session: { id: sessionId, aal: 'aal1' },
    amr: [{ method: AmrMethod.password, timestamp: Math.floor(now.getTime() / 1000) }],
    refreshToken,
    weakPassword,
  });
  await recordPasswordSignIn(deps.db, {
    sessionId, userId: user.id, at: now, userAgent: input.client.userAgent, ip: input.client.ip || null, method: AmrMethod.password,
    refreshToken, provider,
    audit: auditEntry({ actor: signedIn, action: AuditAction.login, client: input.client, at: now, traits: { provider } }),
  });
  return body;
}
