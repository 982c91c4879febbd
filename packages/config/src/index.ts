export type {
  AuthConfig, ApiConfig, DbConfig, LogConfig, JwtConfig, Jwk, ProviderConfig, ExternalConfig, PasswordConfig,
  CaptchaConfig, SecurityConfig, RateLimitConfig, SmtpConfig, MailerConfig, SmsConfig, TracingConfig,
  MetricsConfig, ProviderName, MailKind, NotificationKind, SmsProviderName, LogLevel, CaptchaProviderName,
} from './auth/schema';
export {
  PROVIDER_NAMES, MAIL_KINDS, NOTIFICATION_KINDS, SMS_PROVIDERS, LOG_LEVELS, CAPTCHA_PROVIDERS,
} from './auth/schema';
export type { DnsConfig, DnsEnvironment } from './dns/schema';
export { DNS_ENVIRONMENTS, DEFAULT_DEV_SESSION_SECRET } from './dns/schema';
