export type {
  AuthConfig, ApiConfig, DbConfig, LogConfig, JwtConfig, Jwk, ProviderConfig, ExternalConfig, PasswordConfig,
  CaptchaConfig, SecurityConfig, RateLimitConfig, SmtpConfig, MailerConfig, SmsConfig, MfaConfig, TracingConfig,
  MetricsConfig, ProviderName, MailKind, NotificationKind, SmsProviderName, LogLevel, CaptchaProviderName,
  HookName, HookTarget, HooksConfig, SamlConfig, WebAuthnConfig, OAuthServerConfig, CustomOAuthConfig, OutboundConfig, ConsoleConfig,
} from './auth/schema';
export {
  PROVIDER_NAMES, MAIL_KINDS, NOTIFICATION_KINDS, SMS_PROVIDERS, LOG_LEVELS, CAPTCHA_PROVIDERS,
} from './auth/schema';
export { loadAuthConfig, type LoadAuthConfigOptions } from './auth/load';
export { DEFAULT_SUBJECTS } from './auth/schema-email';
export { OAUTH_SCOPES } from './auth/schema-oauth-server';

export type { DnsConfig, DnsEnvironment, DnsOidcConfig } from './dns/schema';
export { DNS_ENVIRONMENTS, DEFAULT_DEV_SESSION_SECRET } from './dns/schema';
export { loadDnsConfig, type LoadDnsConfigOptions } from './dns/load';
export { parseHostPort } from './dns/yaml-schema';
export { loadYamlEnvironments, type LoadYamlEnvironmentsOptions } from './yaml/environments';

export { ConfigError, exitOnConfigError } from './errors';
export { MIN_SECRET_CHARACTERS, weakKeyReason, weakSecretReason } from './secret-strength';
export { parseBoolean, parseDuration, parseList, parseRequiredCharacters } from './coerce';
export {
  createClientAddressResolver, normalizeAddress, parseTrustedProxies, addressListTest,
  type ClientAddressOptions, type ClientAddressResolver,
} from './client-address';
export { envDirsFor, findWorkspaceRoot, readEnvFiles } from './env-files';
