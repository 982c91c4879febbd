// PUT /user (reference §1.4.7): metadata merge and password change; email and phone changes are their own
// services (email/change.ts, phone/flows.ts), run in the same transaction.
import { constantTimeEqual, hashOneTimeToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { SessionRow, UserRow } from '../../queries/columns';
import { findIdentitiesByUserId } from '../../queries/identities';
import { findFactorsByUserId, type FactorRow } from '../../queries/mfa';
import { deleteOneTimeTokens, findOneTimeTokenHash } from '../../queries/one-time-tokens';
import { countPasskeys } from '../../queries/passkeys';
import { deleteSessions } from '../../queries/sessions';
import { findReauthenticationToken, findPasswordHash, findUserById, mergeUserMetadata, setPassword, type Executor } from '../../queries/users';
import { serializeUser, type UserJson } from '../../serialize';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { checkPasswordStrength, comparePassword, hashPassword } from './passwords';
import { requestEmailChange, type EmailChangeInput } from '../email/change';
import { sendNotification } from '../email/notifications';
import { requestPhoneChange } from '../phone/flows';
import { requireAal2ForSensitiveChange } from '../mfa/factors';

export const Nonce = {
  needed: 'Password update requires reauthentication',
  invalid: 'Nonce has expired or is invalid',
} as const;

export interface UpdateUserInput {
  user: UserRow;
  sessionId: string | undefined;
  /** The caller's session and factors: an AAL1 session of a user with a verified factor may not change credentials. */
  session?: SessionRow;
  factors?: readonly FactorRow[];
  data?: Record<string, unknown>;
  password?: string;
  nonce?: string;
  client: ClientInfo;
  /** PUT /user {email}: handled by the email-change service (services/email/change.ts). */
  emailChange?: Omit<EmailChangeInput, 'user'>;
  /** PUT /user {phone}: the new number confirms by SMS code (services/phone/flows.ts). */
  phone?: string;
}

export async function updateUser(deps: Deps, input: UpdateUserInput): Promise<UserJson> {
  const { config } = deps;
  const now = deps.clock.now();
  if (input.password !== undefined || input.emailChange || input.phone !== undefined) {
    // The identity provider owns an SSO user's address and credentials (GoTrue's rule).
    if (input.user.is_sso_user) {
      throw new ApiError(422, ErrorCode.user_sso_managed, 'Updating email, phone or password of an SSO account is not allowed: the identity provider manages them');
    }
    // A passkey counts as a verified factor (issue 31); counted only when the session is below AAL2.
    const hasPasskey = input.session?.aal !== 'aal2' && (await countPasskeys(deps.db, input.user.id)) > 0;
    requireAal2ForSensitiveChange({ session: input.session, factors: input.factors ?? [], hasPasskey });
  }
  let newHash: string | undefined;
  if (input.password !== undefined) {
    checkPasswordStrength(input.password, config.password);
    if (input.user.is_anonymous && !input.user.email && !input.user.phone) {
      throw new ApiError(422, ErrorCode.validation_failed, 'Updating password of an anonymous user requires an email or phone');
    }
    if (await comparePassword(input.password, await findPasswordHash(deps.db, input.user.id))) {
      throw new ApiError(422, ErrorCode.same_password, 'New password should be different from the old password.');
    }
    newHash = await hashPassword(input.password, config.password.bcryptCost);
  }

  await deps.db.transaction().execute(async (tx) => {
    if (input.data !== undefined) {
      await mergeUserMetadata(tx, input.user.id, input.data, now);
      await audit(tx, { actor: input.user, action: AuditAction.userModified, client: input.client, at: now });
    }
    if (newHash !== undefined) {
      if (config.security.updatePasswordRequireReauthentication) {
        await checkReauthenticationNonce(deps, tx, input.user, input.nonce, now);
      }
      await setPassword(tx, input.user.id, newHash, now);
      await deleteOneTimeTokens(tx, input.user.id);
      // A password change ends every other session of the user (reference §1.4.7).
      if (input.sessionId) await deleteSessions(tx, input.user.id, { except: input.sessionId });
      else await deleteSessions(tx, input.user.id);
      await audit(tx, { actor: input.user, action: AuditAction.userUpdatedPassword, client: input.client, at: now });
    }
    if (input.emailChange) await requestEmailChange(deps, tx, { ...input.emailChange, user: input.user });
    if (input.phone !== undefined) await requestPhoneChange(deps, tx, { user: input.user, phone: input.phone });
  });
  if (newHash !== undefined) await sendNotification(deps, 'passwordChanged', input.user.email, {});

  const user = await findUserById(deps.db, input.user.id);
  if (!user) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  return serializeUser(user, await findIdentitiesByUserId(deps.db, user.id), await findFactorsByUserId(deps.db, user.id));
}

/** Checks the /reauthenticate nonce: SHA-224(email or phone + nonce), within its lifetime. */
async function checkReauthenticationNonce(
  deps: Pick<Deps, 'config'>,
  tx: Executor,
  user: UserRow,
  nonce: string | undefined,
  now: Date,
): Promise<void> {
  if (!nonce) throw new ApiError(400, ErrorCode.reauthentication_needed, Nonce.needed);
  const invalid = () => new ApiError(422, ErrorCode.reauthentication_not_valid, Nonce.invalid);
  const identifier = user.email || user.phone;
  const stored = await findReauthenticationToken(tx, user.id);
  if (!identifier || !stored?.reauthentication_sent_at) throw invalid();
  const lifetime = user.email ? deps.config.mailer.otpExp : deps.config.sms.otpExp;
  if (new Date(stored.reauthentication_sent_at).getTime() + lifetime * 1000 < now.getTime()) throw invalid();
  const expected = hashOneTimeToken(identifier, nonce);
  const candidates = [stored.reauthentication_token ?? '', (await findOneTimeTokenHash(tx, user.id, 'reauthentication_token')) ?? ''];
  if (!candidates.some((hash) => hash !== '' && constantTimeEqual(hash, expected))) throw invalid();
}
