// Sending a code by SMS (reference §1.4.4, spec Part 1 "Phone"): one code per user and kind, stored only as
// SHA-224(phone + code) like email codes, valid SMS_OTP_EXP seconds. A send is refused within
// SMS_MAX_FREQUENCY of the previous one for that user and kind, and once the service-wide budget
// (RATE_LIMIT_SMS_SENT per hour, a bucket every instance shares) is spent. The SMS goes out inside the
// caller's transaction: when the provider refuses it, the transaction rolls back and no code is left valid.
// Against SMS pumping (issue 26), budgets per number, per client and per user come before the service-wide one,
// and a number nobody has confirmed may use only half of the service-wide budget: the rest stays for users
// whose numbers are confirmed (sign-in codes, MFA), however many numbers a stranger makes up.
// SMS_TEST_OTP numbers get their fixed code and no SMS.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { takeBucketTokens } from '../../queries/rate-limit-buckets';
import type { Executor } from '../../queries/users';
import { SmsSendError } from './providers';
import { issueEmailToken } from '../email/one-time-tokens';
import { sendSmsThroughHook } from '../hooks/send-sms';

export type SmsTokenType = 'confirmation_token' | 'phone_change_token' | 'reauthentication_token';

export function smsTooSoon(seconds: number): ApiError {
  return new ApiError(429, ErrorCode.over_sms_send_rate_limit,
    `For security purposes, you can only request this after ${Math.max(1, Math.ceil(seconds))} seconds.`);
}

/** The fixed code of an SMS_TEST_OTP number, while SMS_TEST_OTP_VALID_UNTIL has not passed. */
export function testOtpFor(deps: Pick<Deps, 'config'>, phone: string, now: Date): string | undefined {
  const { testOtp, testOtpValidUntil } = deps.config.sms;
  if (testOtpValidUntil && now.getTime() > testOtpValidUntil.getTime()) return undefined;
  return testOtp[phone];
}

/** Who an SMS is for, for its budgets: the number's user, the requesting client, whether the number is confirmed. */
export interface SmsBudgetKeys {
  userId?: string;
  client?: string;
  proven: boolean;
}

export function renderSms(template: string, code: string): string {
  return template.replace(/\{\{\s*\.Code\s*\}\}/g, code);
}

/** Issues and sends a code to `phone` for `userId`; returns the provider's message id ('' for a test number). */
export async function sendSmsOtp(
  deps: Pick<Deps, 'config' | 'clock' | 'sms' | 'telemetry' | 'db' | 'log'>,
  tx: Executor,
  input: { userId: string; phone: string; type: SmsTokenType; channel?: 'sms' | 'whatsapp'; client?: string; proven: boolean },
): Promise<string> {
  const { sms } = deps.config;
  const now = deps.clock.now();
  const fixed = testOtpFor(deps, input.phone, now);
  const issued = await issueEmailToken(tx, {
    userId: input.userId,
    type: input.type,
    relatesTo: input.phone,
    otpLength: sms.otpLength,
    now,
    minIntervalSeconds: sms.maxFrequency,
    otp: fixed,
    tooSoon: smsTooSoon,
  });
  if (fixed !== undefined) return '';
  return deliverSms(deps, tx, {
    phone: input.phone, body: renderSms(sms.template, issued.otp), otp: issued.otp, userId: input.userId, channel: input.channel,
    budget: { userId: input.userId, client: input.client, proven: input.proven },
  });
}

/** Takes one SMS from each budget that applies, in the caller's transaction (a later refusal gives them all back). */
async function takeSmsBudgets(deps: Pick<Deps, 'config' | 'clock'>, tx: Executor, phone: string, keys: SmsBudgetKeys): Promise<void> {
  const limits = deps.config.rateLimit;
  const now = deps.clock.now();
  const budgets: Array<[string, number]> = [
    [`sms:number:${phone}`, limits.smsSentPerNumber],
    ...(keys.client ? [[`sms:client:${keys.client}`, limits.smsSentPerClient] as [string, number]] : []),
    ...(keys.userId ? [[`sms:user:${keys.userId}`, limits.smsSentPerUser] as [string, number]] : []),
    ...(keys.proven ? [] : [['sms:service:unconfirmed', Math.ceil(limits.smsSent / 2)] as [string, number]]),
    ['sms:service', limits.smsSent],
  ];
  for (const [key, perHour] of budgets) {
    const taken = perHour > 0 ? await takeBucketTokens(tx, { key, ratePerSecond: perHour / 3600, burst: perHour, now }, 1) : undefined;
    if (!taken?.granted) throw new ApiError(429, ErrorCode.over_sms_send_rate_limit, 'SMS rate limit exceeded');
  }
}

/**
 * Sends one SMS within its budgets (taken in the caller's transaction, so a failed send gives them back); a
 * provider's refusal is 500 sms_send_failed with its message. Returns the provider's message id.
 */
export async function deliverSms(
  deps: Pick<Deps, 'config' | 'clock' | 'sms' | 'telemetry' | 'db' | 'log'>,
  tx: Executor,
  input: { phone: string; body: string; otp: string; userId: string; channel?: 'sms' | 'whatsapp'; budget: SmsBudgetKeys },
): Promise<string> {
  await takeSmsBudgets(deps, tx, input.phone, input.budget);
  if (deps.config.hooks.sendSms) {
    await sendSmsThroughHook(deps, tx, { userId: input.userId, otp: input.otp });
    deps.telemetry?.count('sms_sent', { provider: 'hook' });
    return '';
  }
  if (!deps.sms) throw new ApiError(500, ErrorCode.sms_send_failed, 'Error sending SMS: no SMS provider is configured (SMS_PROVIDER)');
  try {
    const sent = await deps.sms.send({ to: input.phone, body: input.body, channel: input.channel });
    deps.telemetry?.count('sms_sent', { provider: deps.config.sms.provider ?? '' });
    return sent.messageId ?? '';
  } catch (err) {
    const message = err instanceof SmsSendError ? `${err.provider}: ${err.message}` : (err as Error).message;
    throw new ApiError(500, ErrorCode.sms_send_failed, `Error sending SMS via ${message}`, { cause: err });
  }
}
