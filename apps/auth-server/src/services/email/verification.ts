// /verify for email tokens (reference §1.4.3): consume the token, apply its effect (confirm the
// email, accept a recovery or magic link, advance or apply an email change), then either sign the
// user in, hand out a PKCE auth code (links of PKCE flows), or report the first of two email-change
// confirmations. Everything happens in one transaction.
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { recordWrongCode, type EmailTokenType } from '../../queries/email-tokens';
import {
  addEmailProvider,
  applyEmailChange,
  confirmEmail,
  hasExternalIdentity,
  hasPassword,
  markFirstEmailChangeConfirmation,
  setPasswordHash,
  updateEmailIdentity,
} from '../../queries/email-users';
import { findIdentitiesByUserId, insertIdentity } from '../../queries/identities';
import { findUserById, setLastSignIn } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { isBanned } from '../sessions/accounts';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { sendNotification } from './notifications';
import { clearEmailTokens, consumeEmailToken, PKCE_PREFIX, type TokenProof } from './one-time-tokens';
import { checkPasswordStrength, hashPassword } from '../sessions/passwords';
import { dropIdentitiesWithoutMailboxProof } from './mailbox-proof';
import { issueAuthCode, type EmailAuthenticationMethod } from '../external/pkce';
import { AmrMethod, createSession, type IssuedSession } from '../sessions/sessions';

export const EMAIL_VERIFY_TYPES = ['signup', 'invite', 'recovery', 'magiclink', 'email_change', 'email'] as const;
export type EmailVerifyType = (typeof EMAIL_VERIFY_TYPES)[number];

const TOKEN_TYPES: Record<EmailVerifyType, EmailTokenType[]> = {
  signup: ['confirmation_token'],
  invite: ['confirmation_token'],
  recovery: ['recovery_token'],
  magiclink: ['recovery_token'],
  // Generic email OTP: a sign-up confirmation or a magic link (stored as the recovery token).
  email: ['confirmation_token', 'recovery_token'],
  email_change: ['email_change_token_new', 'email_change_token_current'],
};

/** Flow-state methods a verified token may complete (GoTrue's ParseAuthenticationMethod). */
const FLOW_METHODS: Record<EmailTokenType, EmailAuthenticationMethod[]> = {
  confirmation_token: ['email/signup', 'invite'],
  recovery_token: ['magiclink', 'recovery'],
  email_change_token_new: ['email_change'],
  email_change_token_current: ['email_change'],
  reauthentication_token: [],
  phone_change_token: [],
};

export const EMAIL_CHANGE_FIRST_CONFIRMATION = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';

export type VerifyOutcome =
  | { kind: 'session'; body: TokenResponseJson & { type: string } }
  | { kind: 'code'; authCode: string }
  | { kind: 'message'; message: string };

export interface VerifyInput {
  type: EmailVerifyType;
  proof: TokenProof;
  /** POST /verify signup: sets the password of a user who has none (spec Part 4). */
  password?: string;
  client: ClientInfo;
  /** GET /verify (a clicked link): a pkce_ token answers with an auth code instead of a session. */
  viaLink: boolean;
  /** Message of the 403 when nothing matches. */
  invalidMessage?: string;
}

export async function verifyEmailToken(deps: Deps, input: VerifyInput): Promise<VerifyOutcome> {
  const { config } = deps;
  const now = deps.clock.now();
  if (input.password !== undefined) checkPasswordStrength(input.password, config.password);
  const newHash = input.password !== undefined ? await hashPassword(input.password, config.password.bcryptCost) : undefined;
  let notifyEmailChange: { oldEmail: string | null; newEmail: string } | undefined;

  const invalid = () => new ApiError(403, ErrorCode.otp_expired, input.invalidMessage ?? Messages.tokenExpiredOrInvalid);
  let wrongCode = false;
  const result = await deps.db.transaction().execute(async (tx) => {
    const consumed = await consumeEmailToken(tx, { proof: input.proof, types: TOKEN_TYPES[input.type], now, otpExpSeconds: config.mailer.otpExp });
    if (!consumed) {
      wrongCode = true;
      throw invalid();
    }
    const found = await findUserById(tx, consumed.userId);
    if (!found) throw invalid();
    if (isBanned(found, now)) throw new ApiError(403, ErrorCode.user_banned, Messages.userBanned);

    let type: string = input.type;
    const method: string = AmrMethod.otp;
    switch (consumed.type) {
      case 'confirmation_token': {
        if (input.type === 'email') type = 'signup';
        if (newHash) await setPasswordHash(tx, found.id, newHash, now);
        else if (input.type === 'signup' && !(await hasPassword(tx, found.id)) && !(await hasExternalIdentity(tx, found.id))) {
          throw new ApiError(422, ErrorCode.validation_failed, 'A password is required to verify this sign-up');
        }
        await dropIdentitiesWithoutMailboxProof(tx, found, input.client, now);
        await confirmEmail(tx, found.id, now);
        await audit(tx, { actor: found, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'email' } });
        break;
      }
      case 'recovery_token': {
        if (input.type === 'email') type = 'magiclink';
        await dropIdentitiesWithoutMailboxProof(tx, found, input.client, now);
        await confirmEmail(tx, found.id, now);
        break;
      }
      case 'email_change_token_new':
      case 'email_change_token_current': {
        if (!found.email_change) throw invalid();
        // Secure email change: both addresses must confirm. The first confirmation only records
        // itself (even with MAILER_AUTOCONFIRM: GoTrue skips this then, a known bug not copied).
        const secure = config.mailer.secureEmailChangeEnabled && Boolean(found.email);
        if (secure && (await markFirstEmailChangeConfirmation(tx, found.id, now))) {
          return { kind: 'message' as const, message: EMAIL_CHANGE_FIRST_CONFIRMATION };
        }
        const changed = await applyEmailChange(tx, found.id, now).catch((err: unknown) => {
          if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.email_exists, 'A user with this email address has already been registered');
          throw err;
        });
        if (!changed) throw invalid();
        if (!(await updateEmailIdentity(tx, found.id, changed.newEmail, now))) {
          await insertIdentity(tx, {
            id: randomUUID(),
            provider_id: found.id,
            user_id: found.id,
            identity_data: { sub: found.id, email: changed.newEmail, email_verified: true, phone_verified: false },
            provider: 'email',
            last_sign_in_at: now,
            created_at: now,
            updated_at: now,
          });
          await addEmailProvider(tx, found.id, now);
        }
        notifyEmailChange = changed;
        await audit(tx, { actor: found, action: AuditAction.userModified, client: input.client, at: now });
        break;
      }
      default:
        throw invalid();
    }
    await clearEmailTokens(tx, found.id);

    if (input.viaLink && consumed.tokenHash.startsWith(PKCE_PREFIX)) {
      const authCode = await issueAuthCode(tx, { userId: found.id, methods: FLOW_METHODS[consumed.type], now });
      return { kind: 'code' as const, authCode };
    }
    const user = (await findUserById(tx, found.id)) as UserRow;
    const issued: IssuedSession = await createSession(tx, { user, method, client: input.client, at: now });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: 'email' } });
    return { kind: 'session' as const, user: { ...user, last_sign_in_at: now }, issued, type };
  }).catch(async (err: unknown) => {
    // Counted after the rollback, so the count sticks; a typed code names its address, a link does not.
    if (wrongCode && 'email' in input.proof) await recordWrongCode(deps.db, { relatesTo: input.proof.email, types: TOKEN_TYPES[input.type] });
    throw err;
  });

  if (notifyEmailChange) {
    await sendNotification(deps, 'emailChanged', notifyEmailChange.oldEmail, { OldEmail: notifyEmailChange.oldEmail ?? '', Email: notifyEmailChange.newEmail });
  }
  if (result.kind !== 'session') return result;
  const body = await tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
  return { kind: 'session', body: { ...body, type: result.type } };
}
