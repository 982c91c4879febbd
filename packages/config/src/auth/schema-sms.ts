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

export function readSms(r: EnvReader): SmsConfig {
  const provider = r.oneOf('SMS_PROVIDER', SMS_PROVIDERS);
  if (provider) r.requireWhen(REQUIRED[provider], `${r.display('SMS_PROVIDER')} is ${provider}`);
  const s = (name: string): string | undefined => r.string(name)?.trim();
  return {
    autoconfirm: r.bool('SMS_AUTOCONFIRM') ?? false,
    maxFrequency: r.duration('SMS_MAX_FREQUENCY') ?? 60,
    otpExp: r.int('SMS_OTP_EXP', { min: 1 }) ?? 60,
    otpLength: r.int('SMS_OTP_LENGTH', { min: 6, max: 10 }) ?? 6,
    template: r.string('SMS_TEMPLATE') ?? 'Your code is {{ .Code }}',
    provider,
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
