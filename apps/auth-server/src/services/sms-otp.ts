// Sending a code by SMS (reference §1.4.4, spec Part 1 "Phone"): one code per user and kind, stored only as
// SHA-224(phone + code) like email codes, valid SMS_OTP_EXP seconds. A send is refused within
// SMS_MAX_FREQUENCY of the previous one for that user and kind, and once the service-wide budget
// (RATE_LIMIT_SMS_SENT per hour, a bucket every instance shares) is spent. The SMS goes out inside the
// caller's transaction: when the provider refuses it, the transaction rolls back and no code is left valid.
// SMS_TEST_OTP numbers get their fixed code and no SMS.
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { takeBucketTokens } from '../queries/rate-limit-buckets';
import type { Executor } from '../queries/users';
import { SmsSendError } from '../sms';
import { issueEmailToken } from './one-time-tokens';

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

export function renderSms(template: string, code: string): string {
  return template.replace(/\{\{\s*\.Code\s*\}\}/g, code);
}

/** Issues and sends a code to `phone` for `userId`; returns the provider's message id ('' for a test number). */
export async function sendSmsOtp(
  deps: Pick<Deps, 'config' | 'clock' | 'sms' | 'telemetry'>,
  tx: Executor,
  input: { userId: string; phone: string; type: SmsTokenType; channel?: 'sms' | 'whatsapp' },
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
  return deliverSms(deps, tx, { phone: input.phone, body: renderSms(sms.template, issued.otp), channel: input.channel });
}

/**
 * Sends one SMS within the service-wide budget (taken in the caller's transaction, so a failed send gives it
 * back); a provider's refusal is 500 sms_send_failed with its message. Returns the provider's message id.
 */
export async function deliverSms(
  deps: Pick<Deps, 'config' | 'clock' | 'sms' | 'telemetry'>,
  tx: Executor,
  input: { phone: string; body: string; channel?: 'sms' | 'whatsapp' },
): Promise<string> {
  const budget = deps.config.rateLimit.smsSent;
  const now = deps.clock.now();
  const taken = budget > 0 ? await takeBucketTokens(tx, { key: 'sms:service', ratePerSecond: budget / 3600, burst: budget, now }, 1) : undefined;
  if (!taken?.granted) throw new ApiError(429, ErrorCode.over_sms_send_rate_limit, 'SMS rate limit exceeded');
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
