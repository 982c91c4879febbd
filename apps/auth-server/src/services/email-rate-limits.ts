// RATE_LIMIT_EMAIL_SENT: emails per period (default 30 per hour) across the whole service, counted
// in auth.email_send_log so that several instances share one budget (reference §6.2). The check and
// the log row happen inside the sending transaction under an advisory lock: a failed send rolls
// the row back, and two instances cannot both take the last slot.
import { ApiError, ErrorCode, Messages } from '../errors';
import { countEmailsSentSince, insertEmailSendLog, lockEmailBudget } from '../queries/email-send-log';
import type { Executor } from '../queries/users';

export interface EmailBudget {
  emailSent: number;
  emailSentPeriod: number;
}

export async function takeEmailBudget(
  tx: Executor,
  budget: EmailBudget,
  entry: { userId: string | null; kind: string; recipient: string; now: Date },
): Promise<void> {
  await lockEmailBudget(tx);
  const since = new Date(entry.now.getTime() - budget.emailSentPeriod * 1000);
  const sent = await countEmailsSentSince(tx, since);
  if (sent >= budget.emailSent) {
    throw new ApiError(429, ErrorCode.over_email_send_rate_limit, Messages.emailRateLimitExceeded);
  }
  await insertEmailSendLog(tx, { userId: entry.userId, kind: entry.kind, recipient: entry.recipient, sentAt: entry.now });
}
