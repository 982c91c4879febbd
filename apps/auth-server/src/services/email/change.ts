// PUT /user {email} (reference §6.5): the new address is recorded as pending and confirmed by link
// or code. With MAILER_SECURE_EMAIL_CHANGE_ENABLED (default) and a current address, one token goes
// to each address and both are needed, also with MAILER_AUTOCONFIRM (GoTrue skips that: auth#2600).
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { addEmailProvider, applyEmailChange, setPendingEmailChange, updateEmailIdentity } from '../../queries/email-users';
import { findUserByEmail, type Executor } from '../../queries/users';
import { normalizeEmail } from '../sessions/accounts';
import { sendEmailToken } from './tokens';
import type { PkceParams } from '../external/pkce';
import { sendEmailThroughHook } from '../hooks/send-email';

export interface EmailChangeInput {
  user: UserRow;
  email: string;
  /** Already validated against the allow-list. */
  redirectTo: string;
  pkce: PkceParams | undefined;
}

/** Call inside PUT /user's transaction. Returns false when the address is unchanged (nothing to do). */
export async function requestEmailChange(deps: Deps, tx: Executor, input: EmailChangeInput): Promise<boolean> {
  const newEmail = normalizeEmail(input.email);
  const { user } = input;
  if (newEmail === user.email) return false;
  const taken = await findUserByEmail(tx, newEmail, deps.config.jwt.aud);
  if (taken) throw new ApiError(422, ErrorCode.email_exists, 'A user with this email address has already been registered');
  const now = deps.clock.now();
  await setPendingEmailChange(tx, user.id, newEmail, now);
  if (!user.email && deps.config.mailer.autoconfirm) {
    // An anonymous (or phone-only) user adding an email under autoconfirm: nothing to confirm against.
    await applyEmailChange(tx, user.id, now);
    if (!(await updateEmailIdentity(tx, user.id, newEmail, now))) await addEmailProvider(tx, user.id, now);
    return true;
  }
  await sendEmailChangeTokens(deps, tx, { user, newEmail, redirectTo: input.redirectTo, pkce: input.pkce });
  return true;
}

/** Sends the email-change message(s): to the new address, and to the current one in secure mode. */
export async function sendEmailChangeTokens(
  deps: Deps,
  tx: Executor,
  input: { user: UserRow; newEmail: string; redirectTo: string; pkce: PkceParams | undefined },
): Promise<void> {
  const { user, newEmail } = input;
  const target = { userId: user.id, email: user.email ?? '', newEmail };
  // With the send email hook, both tokens go out in one call (GoTrue's shape) once both are stored.
  const deliver = deps.config.hooks.sendEmail === undefined;
  const toNew = await sendEmailToken(deps, tx, { target, action: 'email_change_new', redirectTo: input.redirectTo, pkce: input.pkce, deliver });
  let toCurrent: Awaited<ReturnType<typeof sendEmailToken>> | undefined;
  if (deps.config.mailer.secureEmailChangeEnabled && user.email) {
    // Both tokens share email_change_sent_at: the frequency check ran for the first.
    toCurrent = await sendEmailToken(deps, tx, { target, action: 'email_change_current', redirectTo: input.redirectTo, pkce: input.pkce, skipFrequency: true, deliver });
  }
  if (deliver) return;
  await sendEmailThroughHook(deps, tx, {
    userId: user.id,
    emailData: {
      token: toNew.otp, token_hash: toNew.tokenHash, redirect_to: toNew.redirectTo, email_action_type: toNew.verificationType,
      token_new: toCurrent?.otp ?? '', token_hash_new: toCurrent?.tokenHash ?? '',
    },
  });
}
