// One place that turns "this user needs a <kind> email" into a stored token, an action link and
// (for sends) a message: used by every email flow, and by admin generate_link (prepare only).
// Sending means queueing in the caller's transaction, after the token is stored (mail/outbox.ts
// delivers once the request is done): the answer never waits for SMTP, and a flow that rolls back
// leaves neither token nor message.
import type { MailKind } from '@keyzone/config';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { buildActionLink, type LinkKind } from '../../mail/links';
import type { EmailTokenType } from '../../queries/email-tokens';
import type { Executor } from '../../queries/users';
import type { ClientInfo } from '../platform/context';
import { takeEmailBudget } from './budgets';
import { issueEmailToken } from './one-time-tokens';
import { createEmailFlowState, type EmailAuthenticationMethod, type PkceParams } from '../external/pkce';
import { sendEmailThroughHook } from '../hooks/send-email';

/** Every email action; the names are generate_link's types. */
export type EmailAction =
  | 'signup'
  | 'invite'
  | 'recovery'
  | 'magiclink'
  | 'email_change_current'
  | 'email_change_new'
  | 'reauthentication';

interface ActionSpec {
  tokenType: EmailTokenType;
  mailKind: MailKind;
  linkKind: LinkKind | undefined;
  /** The `type` of the action link and of generate_link's verification_type. */
  verificationType: string;
  method: EmailAuthenticationMethod;
}

export const EMAIL_ACTIONS: Record<EmailAction, ActionSpec> = {
  signup: { tokenType: 'confirmation_token', mailKind: 'confirmation', linkKind: 'confirmation', verificationType: 'signup', method: 'email/signup' },
  invite: { tokenType: 'confirmation_token', mailKind: 'invite', linkKind: 'invite', verificationType: 'invite', method: 'invite' },
  recovery: { tokenType: 'recovery_token', mailKind: 'recovery', linkKind: 'recovery', verificationType: 'recovery', method: 'recovery' },
  magiclink: { tokenType: 'recovery_token', mailKind: 'magicLink', linkKind: 'magicLink', verificationType: 'magiclink', method: 'magiclink' },
  email_change_current: { tokenType: 'email_change_token_current', mailKind: 'emailChange', linkKind: 'emailChange', verificationType: 'email_change', method: 'email_change' },
  email_change_new: { tokenType: 'email_change_token_new', mailKind: 'emailChange', linkKind: 'emailChange', verificationType: 'email_change', method: 'email_change' },
  reauthentication: { tokenType: 'reauthentication_token', mailKind: 'reauthentication', linkKind: undefined, verificationType: 'reauthentication', method: 'otp' },
};

export interface EmailTokenTarget {
  userId: string;
  /** The user's current email. */
  email: string;
  /** For email changes: the address being changed to. */
  newEmail?: string;
}

export interface PreparedEmailToken {
  /** The numeric code (GoTrue's email_otp). */
  otp: string;
  /** The stored hash, the link's token (GoTrue's hashed_token). */
  tokenHash: string;
  /** `{API_EXTERNAL_URL}/verify?token=..&type=..&redirect_to=..`; empty for reauthentication. */
  actionLink: string;
  verificationType: string;
  redirectTo: string;
  /** Where the message goes (the new address for email_change_new). */
  recipient: string;
}

function recipientOf(action: EmailAction, target: EmailTokenTarget): string {
  if (action === 'email_change_new') {
    if (!target.newEmail) throw new Error('email_change_new needs newEmail');
    return target.newEmail;
  }
  return target.email;
}

/**
 * Stores a fresh token for the action and builds its link, sending nothing. This is the function
 * admin generate_link uses. `redirectTo` must already be validated (RedirectPolicy).
 * `minIntervalSeconds` applies SMTP_MAX_FREQUENCY (flows that send; generate_link passes nothing).
 */
export async function prepareEmailToken(
  deps: Pick<Deps, 'config' | 'clock'>,
  tx: Executor,
  input: { target: EmailTokenTarget; action: EmailAction; redirectTo: string; pkce?: PkceParams; minIntervalSeconds?: number; now?: Date },
): Promise<PreparedEmailToken> {
  const spec = EMAIL_ACTIONS[input.action];
  const now = input.now ?? deps.clock.now();
  const recipient = recipientOf(input.action, input.target);
  const issued = await issueEmailToken(tx, {
    userId: input.target.userId,
    type: spec.tokenType,
    relatesTo: recipient,
    otpLength: deps.config.mailer.otpLength,
    now,
    pkce: input.pkce !== undefined,
    minIntervalSeconds: input.minIntervalSeconds,
  });
  if (input.pkce && input.action !== 'email_change_current') {
    // One flow state per request: the email-change pair shares the one made for the new address.
    await createEmailFlowState(tx, { userId: input.target.userId, pkce: input.pkce, method: spec.method, now });
  }
  const actionLink =
    spec.linkKind === undefined
      ? ''
      : buildActionLink(deps.config, spec.linkKind, { tokenHash: issued.tokenHash, type: spec.verificationType, redirectTo: input.redirectTo });
  return {
    otp: issued.otp,
    tokenHash: issued.tokenHash,
    actionLink,
    verificationType: spec.verificationType,
    redirectTo: input.redirectTo,
    recipient,
  };
}

/**
 * Stores the token, takes one unit of the email budgets (per client, per address, service-wide) and
 * queues the message, all in the caller's transaction. SMTP_MAX_FREQUENCY per user and kind is enforced unless `skipFrequency`.
 */
export async function sendEmailToken(
  deps: Pick<Deps, 'config' | 'mailer' | 'clock' | 'db' | 'log'>,
  tx: Executor,
  input: {
    target: EmailTokenTarget;
    action: EmailAction;
    redirectTo: string;
    pkce?: PkceParams;
    skipFrequency?: boolean;
    client?: ClientInfo;
    /** The request already took the budgets (takeAddressBudget) before deferring the work. */
    budgetTaken?: boolean;
    /** false: store the token and take the budgets, but leave the sending to the caller (one send email hook call for two tokens). */
    deliver?: boolean;
  },
): Promise<PreparedEmailToken & { sentAt: Date }> {
  const mailer = deps.mailer;
  const hook = deps.config.hooks.sendEmail !== undefined;
  if (!mailer && !hook) throw new ApiError(500, ErrorCode.unexpected_failure, 'Email sending is not configured');
  const now = deps.clock.now();
  const prepared = await prepareEmailToken(deps, tx, {
    ...input,
    now,
    minIntervalSeconds: input.skipFrequency ? undefined : deps.config.smtp.maxFrequency,
  });
  const spec = EMAIL_ACTIONS[input.action];
  if (!input.budgetTaken) {
    await takeEmailBudget(tx, deps.config.rateLimit, {
      userId: input.target.userId,
      kind: spec.mailKind,
      recipient: prepared.recipient,
      client: input.client?.limitKey,
      now,
    });
  }
  if (input.deliver === false) return { ...prepared, sentAt: now };
  if (hook) {
    await sendEmailThroughHook(deps, tx, {
      userId: input.target.userId,
      emailData: { token: prepared.otp, token_hash: prepared.tokenHash, redirect_to: prepared.redirectTo, email_action_type: prepared.verificationType },
    });
    return { ...prepared, sentAt: now };
  }
  await (mailer as NonNullable<typeof mailer>).queue(tx, {
    kind: spec.mailKind,
    to: prepared.recipient,
    data: {
      SiteURL: deps.config.siteUrl,
      ConfirmationURL: prepared.actionLink || undefined,
      Token: prepared.otp,
      TokenHash: prepared.tokenHash,
      RedirectTo: prepared.redirectTo,
      Email: input.target.email,
      NewEmail: input.target.newEmail,
    },
  });
  return { ...prepared, sentAt: now };
}
