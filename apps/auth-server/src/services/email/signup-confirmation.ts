// Sending the sign-up confirmation (called by signUpWithEmail inside its transaction when
// MAILER_AUTOCONFIRM is off, for a new user or an unconfirmed duplicate). Stores the token
// (users.confirmation_token + one_time_tokens), sends the mail, and returns the time written to
// users.confirmation_sent_at. Throwing (send failure, SMTP_MAX_FREQUENCY) rolls the sign-up back.
import type { Deps } from '../../deps';
import type { UserRow } from '../../queries/columns';
import type { Executor } from '../../queries/users';
import type { ClientInfo } from '../platform/context';
import { sendEmailToken } from './tokens';
import { parsePkceParams } from '../external/pkce';
import { redirectPolicyFor } from '../platform/redirects';

export interface ConfirmationOptions {
  /** The request's redirect_to (query), not yet checked against the allow-list. */
  redirectTo: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
}

/** Returns confirmation_sent_at, or undefined when no mail was sent (no mailer and no send email hook configured). */
export async function sendSignupConfirmation(
  deps: Pick<Deps, 'mailer' | 'clock' | 'config' | 'db' | 'log'>,
  tx: Executor,
  input: { user: UserRow; client: ClientInfo; options: ConfirmationOptions },
): Promise<Date | undefined> {
  if ((!deps.mailer && !deps.config.hooks.sendEmail) || !input.user.email) return undefined;
  const pkce = parsePkceParams(input.options.codeChallenge, input.options.codeChallengeMethod);
  const redirectTo = redirectPolicyFor(deps.config).validate(input.options.redirectTo);
  const sent = await sendEmailToken(deps, tx, {
    target: { userId: input.user.id, email: input.user.email },
    action: 'signup',
    redirectTo,
    pkce,
    client: input.client,
  });
  return sent.sentAt;
}
