// HOOK for the email engineer: sending the sign-up confirmation.
// signUpWithEmail calls sendSignupConfirmation inside its transaction when MAILER_AUTOCONFIRM is
// off (new user, or an unconfirmed duplicate). Replace the body with: make the OTP, store its hash
// (users.confirmation_token + one_time_tokens), send the mail through deps.mailer, and return the
// time written to users.confirmation_sent_at. Throwing rolls the sign-up back.
import type { Deps } from '../deps';
import type { UserRow } from '../queries/columns';
import { setConfirmationSentAt, type Executor } from '../queries/users';
import type { ClientInfo } from './context';

export interface ConfirmationOptions {
  /** The request's redirect_to (query), not yet checked against the allow-list. */
  redirectTo: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
}

/** Returns confirmation_sent_at, or undefined when no mail was sent (no mailer configured). */
export async function sendSignupConfirmation(
  deps: Pick<Deps, 'mailer' | 'clock'>,
  tx: Executor,
  input: { user: UserRow; client: ClientInfo; options: ConfirmationOptions },
): Promise<Date | undefined> {
  if (!deps.mailer) return undefined;
  const sentAt = deps.clock.now();
  await setConfirmationSentAt(tx, input.user.id, sentAt);
  return sentAt;
}
