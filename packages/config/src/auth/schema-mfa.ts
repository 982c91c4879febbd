// Multi-factor authentication: which factor types may be enrolled and verified, and their limits (reference §1.4.15).
import type { EnvReader } from './env-reader';
import type { MfaConfig } from './schema';

export function readMfa(r: EnvReader): MfaConfig {
  return {
    totp: {
      enrollEnabled: r.bool('MFA_TOTP_ENROLL_ENABLED') ?? true,
      verifyEnabled: r.bool('MFA_TOTP_VERIFY_ENABLED') ?? true,
    },
    phone: {
      enrollEnabled: r.bool('MFA_PHONE_ENROLL_ENABLED') ?? false,
      verifyEnabled: r.bool('MFA_PHONE_VERIFY_ENABLED') ?? false,
      maxFrequency: r.duration('MFA_PHONE_MAX_FREQUENCY') ?? 5,
      otpLength: r.int('MFA_PHONE_OTP_LENGTH', { min: 6, max: 10 }) ?? 6,
      template: r.string('MFA_PHONE_TEMPLATE') ?? 'Your code is {{ .Code }}',
    },
    maxEnrolledFactors: r.int('MFA_MAX_ENROLLED_FACTORS', { min: 1 }) ?? 10,
    maxVerifiedFactors: r.int('MFA_MAX_VERIFIED_FACTORS', { min: 1 }) ?? 10,
    challengeExpiry: r.duration('MFA_CHALLENGE_EXPIRY_DURATION') ?? 300,
    rateLimitChallengeAndVerify: r.int('MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY', { min: 0 }) ?? 15,
    recoveryCodes: {
      enrollEnabled: r.bool('MFA_RECOVERY_CODES_ENROLL_ENABLED') ?? false,
      verifyEnabled: r.bool('MFA_RECOVERY_CODES_VERIFY_ENABLED') ?? false,
    },
  };
}
