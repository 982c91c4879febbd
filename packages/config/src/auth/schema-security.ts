// Password policy, security switches (refresh-token rotation, captcha) and rate limits (reference §6.1, §6.2, §6.6).
import { parseDuration, parseRequiredCharacters } from '../coerce';
import { CAPTCHA_PROVIDERS } from './schema';
import type { PasswordConfig, RateLimitConfig, SecurityConfig } from './schema';
import type { EnvReader } from './env-reader';

export function readPassword(r: EnvReader): PasswordConfig {
  return {
    minLength: r.int('PASSWORD_MIN_LENGTH', { min: 6 }) ?? 6,
    requiredCharacters: r.read('PASSWORD_REQUIRED_CHARACTERS', 'character sets separated by ":"',
      parseRequiredCharacters) ?? [],
    bcryptCost: r.int('BCRYPT_COST', { min: 4, max: 15 }) ?? 10,
  };
}

export function readSecurity(r: EnvReader): SecurityConfig {
  const captchaEnabled = r.bool('SECURITY_CAPTCHA_ENABLED') ?? false;
  if (captchaEnabled) {
    r.requireWhen(['SECURITY_CAPTCHA_PROVIDER', 'SECURITY_CAPTCHA_SECRET'], `${r.display('SECURITY_CAPTCHA_ENABLED')} is true`);
  }
  return {
    refreshTokenRotationEnabled: r.bool('SECURITY_REFRESH_TOKEN_ROTATION_ENABLED') ?? true,
    refreshTokenReuseInterval: r.duration('SECURITY_REFRESH_TOKEN_REUSE_INTERVAL') ?? 10,
    updatePasswordRequireReauthentication: r.bool('SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION') ?? false,
    sbForwardedForEnabled: r.bool('SECURITY_SB_FORWARDED_FOR_ENABLED') ?? false,
    manualLinkingEnabled: r.bool('SECURITY_MANUAL_LINKING_ENABLED') ?? false,
    captcha: {
      enabled: captchaEnabled,
      provider: r.oneOf('SECURITY_CAPTCHA_PROVIDER', CAPTCHA_PROVIDERS),
      secret: r.string('SECURITY_CAPTCHA_SECRET'),
      timeout: r.duration('SECURITY_CAPTCHA_TIMEOUT') ?? 10,
      url: r.url('SECURITY_CAPTCHA_URL'),
    },
  };
}

/** RATE_LIMIT_EMAIL_SENT: "N" (per hour) or "N/duration" (e.g. "10/15m"). */
function parseEmailRate(raw: string): { count: number; period: number } | undefined {
  const match = /^\s*(\d+)\s*(?:\/\s*(\S+)\s*)?$/.exec(raw);
  if (!match) return undefined;
  const period = match[2] === undefined ? 3600 : parseDuration(match[2]);
  if (period === undefined || period <= 0) return undefined;
  return { count: Number(match[1]), period };
}

export function readRateLimit(r: EnvReader): RateLimitConfig {
  const email = r.read('RATE_LIMIT_EMAIL_SENT', 'a count per hour or "count/duration" (e.g. 30 or 10/15m)', parseEmailRate);
  return {
    header: r.string('RATE_LIMIT_HEADER')?.trim(),
    emailSent: email?.count ?? 30,
    emailSentPeriod: email?.period ?? 3600,
    emailSentPerAddress: r.int('RATE_LIMIT_EMAIL_SENT_PER_ADDRESS', { min: 0 }) ?? 5,
    emailSentPerClient: r.int('RATE_LIMIT_EMAIL_SENT_PER_CLIENT', { min: 0 }) ?? 10,
    smsSent: r.int('RATE_LIMIT_SMS_SENT', { min: 0 }) ?? 30,
    smsSentPerNumber: r.int('RATE_LIMIT_SMS_SENT_PER_NUMBER', { min: 0 }) ?? 5,
    smsSentPerClient: r.int('RATE_LIMIT_SMS_SENT_PER_CLIENT', { min: 0 }) ?? 10,
    smsSentPerUser: r.int('RATE_LIMIT_SMS_SENT_PER_USER', { min: 0 }) ?? 10,
    tokenRefresh: r.int('RATE_LIMIT_TOKEN_REFRESH', { min: 0 }) ?? 150,
    verify: r.int('RATE_LIMIT_VERIFY', { min: 0 }) ?? 30,
    otp: r.int('RATE_LIMIT_OTP', { min: 0 }) ?? 30,
    anonymousUsers: r.int('RATE_LIMIT_ANONYMOUS_USERS', { min: 0 }) ?? 30,
    sso: r.int('RATE_LIMIT_SSO', { min: 0 }) ?? 30,
    web3: r.int('RATE_LIMIT_WEB3', { min: 0 }) ?? 30,
  };
}
