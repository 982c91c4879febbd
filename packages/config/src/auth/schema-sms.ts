// Phone sign-in: SMS settings and the four providers' credentials (spec Part 1, "Phone").
import { SMS_PROVIDERS } from './schema';
import type { SmsConfig, SmsProviderName } from './schema';
import type { EnvReader } from './env-reader';

/** Credentials each provider needs when SMS_PROVIDER names it. */
const REQUIRED: Record<SmsProviderName, string[]> = {
  twilio: ['SMS_TWILIO_ACCOUNT_SID', 'SMS_TWILIO_AUTH_TOKEN', 'SMS_TWILIO_MESSAGE_SERVICE_SID'],
  messagebird: ['SMS_MESSAGEBIRD_ACCESS_KEY', 'SMS_MESSAGEBIRD_ORIGINATOR'],
  textlocal: ['SMS_TEXTLOCAL_API_KEY', 'SMS_TEXTLOCAL_SENDER'],
  vonage: ['SMS_VONAGE_API_KEY', 'SMS_VONAGE_API_SECRET', 'SMS_VONAGE_FROM'],
};

/** "15551234567:123456, +4915112345678:654321" → {"15551234567": "123456", …}. */
function parseTestOtp(raw: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const entry of raw.split(',').map((e) => e.trim()).filter(Boolean)) {
    const match = /^\+?([1-9][0-9]{1,14})\s*:\s*([0-9]{4,10})$/.exec(entry);
    if (!match) return undefined;
    out[match[1]!] = match[2]!;
  }
  return out;
}

function parseTime(raw: string): Date | undefined {
  const time = new Date(raw.trim());
  return /^\d{4}-\d{2}-\d{2}T/.test(raw.trim()) && !Number.isNaN(time.getTime()) ? time : undefined;
}

export function readSms(r: EnvReader): SmsConfig {
  const provider = r.oneOf('SMS_PROVIDER', SMS_PROVIDERS);
  if (provider) r.requireWhen(REQUIRED[provider], `${r.display('SMS_PROVIDER')} is ${provider}`);
  const testOtp = r.read('SMS_TEST_OTP', 'phone:code pairs separated by commas (e.g. 15551234567:123456)', parseTestOtp) ?? {};
  // Phone sign-in needs a way to send codes, unless every code is fixed by SMS_TEST_OTP or sign-ups confirm
  // themselves (then only POST /otp would need one, and it says so).
  const smsHook = r.bool('HOOK_SEND_SMS_ENABLED') ?? false;
  if ((r.bool('EXTERNAL_PHONE_ENABLED') ?? false) && !provider && !smsHook && Object.keys(testOtp).length === 0 && !(r.bool('SMS_AUTOCONFIRM') ?? false)) {
    r.problem(`${r.display('SMS_PROVIDER')}: required when ${r.display('EXTERNAL_PHONE_ENABLED')} is true (or set ${r.display('SMS_TEST_OTP')})`);
  }
  const s = (name: string): string | undefined => r.string(name)?.trim();
  return {
    autoconfirm: r.bool('SMS_AUTOCONFIRM') ?? false,
    maxFrequency: r.duration('SMS_MAX_FREQUENCY') ?? 60,
    otpExp: r.int('SMS_OTP_EXP', { min: 1 }) ?? 60,
    otpLength: r.int('SMS_OTP_LENGTH', { min: 6, max: 10 }) ?? 6,
    template: r.string('SMS_TEMPLATE') ?? 'Your code is {{ .Code }}',
    provider,
    testOtp,
    testOtpValidUntil: r.read('SMS_TEST_OTP_VALID_UNTIL', 'an RFC 3339 time (e.g. 2026-12-31T23:59:59Z)', parseTime),
    twilio: {
      accountSid: s('SMS_TWILIO_ACCOUNT_SID'),
      authToken: s('SMS_TWILIO_AUTH_TOKEN'),
      messageServiceSid: s('SMS_TWILIO_MESSAGE_SERVICE_SID'),
      baseUrl: r.url('SMS_TWILIO_BASE_URL'),
    },
    messagebird: {
      accessKey: s('SMS_MESSAGEBIRD_ACCESS_KEY'),
      originator: s('SMS_MESSAGEBIRD_ORIGINATOR'),
      baseUrl: r.url('SMS_MESSAGEBIRD_BASE_URL'),
    },
    textlocal: {
      apiKey: s('SMS_TEXTLOCAL_API_KEY'),
      sender: s('SMS_TEXTLOCAL_SENDER'),
      baseUrl: r.url('SMS_TEXTLOCAL_BASE_URL'),
    },
    vonage: {
      apiKey: s('SMS_VONAGE_API_KEY'),
      apiSecret: s('SMS_VONAGE_API_SECRET'),
      from: s('SMS_VONAGE_FROM'),
      baseUrl: r.url('SMS_VONAGE_BASE_URL'),
    },
  };
}
