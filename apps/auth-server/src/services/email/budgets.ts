// Email budgets (reference §6.2, issue 11), counted in auth.email_send_log so that several instances
// share them: per requesting client (RATE_LIMIT_EMAIL_SENT_PER_CLIENT) and per address
// (RATE_LIMIT_EMAIL_SENT_PER_ADDRESS) in front of the service-wide RATE_LIMIT_EMAIL_SENT, all per
// emailSentPeriod. The small budgets keep one client or one address from emptying the big one.
// Flows that must not reveal whether an address has an account take the budget for unknown
// addresses too, so the answer (200 or 429) is the same for both.
// The check and the log row happen inside the caller's transaction under an advisory lock: a
// rolled-back flow gives its unit back, and two instances cannot both take the last one.
// The service-wide budget counts mails that went to an account (a row with a user), so requests for unknown
// addresses, which send nothing, cannot spend it; and mails to addresses nobody has proven yet (confirmations,
// invitations, a new address) may use only half of it, so a stranger creating accounts cannot keep the owners of
// confirmed addresses from their magic links and password resets (issue 26).
import type { AuthConfig, MailKind } from '@keyzone/config';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import { countEmailsSentSince, insertEmailSendLog, lastEmailSentAt, lockEmailBudget } from '../../queries/email-send-log';
import type { Executor } from '../../queries/users';
import { frequencyLimitError } from './one-time-tokens';

/** Mail kinds sent to an address nobody has proven yet: their share of the service-wide budget is half. */
export const UNPROVEN_KINDS: readonly string[] = ['confirmation', 'invite', 'emailChange'];

export type EmailBudget = Pick<AuthConfig['rateLimit'], 'emailSent' | 'emailSentPeriod' | 'emailSentPerAddress' | 'emailSentPerClient'>;

export async function takeEmailBudget(
  tx: Executor,
  budget: EmailBudget,
  entry: { userId: string | null; kind: string; recipient: string; client?: string | undefined; now: Date },
): Promise<void> {
  await lockEmailBudget(tx);
  const since = new Date(entry.now.getTime() - budget.emailSentPeriod * 1000);
  const sent = await countEmailsSentSince(tx, since, { recipient: entry.recipient, client: entry.client }, UNPROVEN_KINDS);
  const unproven = UNPROVEN_KINDS.includes(entry.kind);
  const over =
    sent.total >= budget.emailSent ||
    (unproven && sent.unproven >= Math.ceil(budget.emailSent / 2)) ||
    sent.toRecipient >= budget.emailSentPerAddress ||
    (entry.client !== undefined && sent.byClient >= budget.emailSentPerClient);
  if (over) throw new ApiError(429, ErrorCode.over_email_send_rate_limit, Messages.emailRateLimitExceeded);
  await insertEmailSendLog(tx, { userId: entry.userId, kind: entry.kind, recipient: entry.recipient, client: entry.client ?? null, sentAt: entry.now });
}

/**
 * For an address that gets no mail where a known one would (unknown on /recover, nothing pending on
 * /resend, a confirmed duplicate sign-up): the same budget checks and log row in a transaction of
 * its own, and SMTP_MAX_FREQUENCY judged from the log, so 200 and 429 come exactly as for a send.
 */
export async function takeEmailBudgetWithoutMail(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  entry: EmailBudgetEntry,
): Promise<void> {
  await deps.db.transaction().execute((tx) => takeAddressBudget(deps, tx, entry));
}

export interface EmailBudgetEntry {
  kind: MailKind;
  recipient: string;
  client?: string | undefined;
  minIntervalSeconds?: number;
}

/**
 * The budgets for a mail to `recipient`, whether or not it has an account, in the caller's
 * transaction; SMTP_MAX_FREQUENCY is judged from the send log (per address and kind).
 */
export async function takeAddressBudget(deps: Pick<Deps, 'config' | 'clock'>, tx: Executor, entry: EmailBudgetEntry): Promise<void> {
  const now = deps.clock.now();
  if (entry.minIntervalSeconds) {
    const last = await lastEmailSentAt(tx, entry.recipient, entry.kind);
    const remaining = last ? (last.getTime() + entry.minIntervalSeconds * 1000 - now.getTime()) / 1000 : 0;
    if (remaining > 0) throw frequencyLimitError(remaining);
  }
  await takeEmailBudget(tx, deps.config.rateLimit, { userId: null, kind: entry.kind, recipient: entry.recipient, client: entry.client, now });
}
