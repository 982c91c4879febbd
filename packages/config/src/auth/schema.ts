// The auth service's configuration tree (spec auth-server.md Part 1). One typed, deeply frozen object built
// by loadAuthConfig from AUTH_* / GOTRUE_* variables. Each leaf's comment names its variable (without
// prefix) and default; the readers in schema-*.ts build each section beside these types.

export const PROVIDER_NAMES = [
  'apple', 'azure', 'bitbucket', 'discord', 'facebook', 'figma', 'github', 'gitlab', 'google',
  'keycloak', 'linkedin', 'notion', 'snapchat', 'spotify', 'slack', 'twitch', 'twitter', 'workos',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Email kinds, camelCase; env names use the UPPER_SNAKE form (magicLink → MAILER_SUBJECTS_MAGIC_LINK). */
export const MAIL_KINDS = [
  'invite', 'confirmation', 'recovery', 'magicLink', 'emailChange', 'reauthentication',
  'passwordChangedNotification', 'emailChangedNotification', 'phoneChangedNotification',
  'identityLinkedNotification', 'identityUnlinkedNotification',
  'mfaFactorEnrolledNotification', 'mfaFactorUnenrolledNotification',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** Notification switches (MAILER_NOTIFICATIONS_<KIND>_ENABLED); each sends the mail kind `<kind>Notification`. */
export const NOTIFICATION_KINDS = [
  'passwordChanged', 'emailChanged', 'phoneChanged', 'identityLinked', 'identityUnlinked',
  'mfaFactorEnrolled', 'mfaFactorUnenrolled',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const SMS_PROVIDERS = ['twilio', 'messagebird', 'textlocal', 'vonage'] as const;
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

// 'silent' (pino) is accepted beyond GoTrue's list so tests can turn logging off.
export const LOG_LEVELS = ['panic', 'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const CAPTCHA_PROVIDERS = ['hcaptcha', 'turnstile'] as const;
export type CaptchaProviderName = (typeof CAPTCHA_PROVIDERS)[number];

/** A private JSON Web Key from JWT_KEYS (kty required; the rest as written). */
export type Jwk = { kty: string; kid?: string; alg?: string; key_ops?: string[]; use?: string } & Record<string, unknown>;

export interface ApiConfig {
  host: string | undefined;            // API_HOST; undefined = all interfaces
  port: number;                        // PORT / API_PORT, default 8081
  externalUrl: string;                 // API_EXTERNAL_URL (required, URL)
  requestIdHeader: string | undefined; // REQUEST_ID_HEADER
  endpoint: string | undefined;        // API_ENDPOINT (multi-instance mode; unsupported, kept for compatibility)
  trustedProxies: string[];            // TRUSTED_PROXIES: addresses/CIDRs of the reverse proxies in front, default none
}

export interface DbConfig {
  driver: 'postgres';                  // DB_DRIVER, default postgres; nothing else accepted
  url: string;                         // DATABASE_URL / DB_DATABASE_URL (required)
  maxPoolSize: number;                 // DB_MAX_POOL_SIZE, default 0 (no explicit cap)
  preparedStatements: boolean;         // DB_PREPARED_STATEMENTS: named statements for hot reads, default true;
                                       // false (or ?pgbouncer=true on the URL) behind a transaction-mode pooler
  namespace: string | undefined;       // DB_NAMESPACE (prefix of auth table names)
  cleanupInterval: number;             // DB_CLEANUP_INTERVAL seconds between housekeeping runs, default 600; 0 = off
  cleanupBatchSize: number;            // DB_CLEANUP_BATCH_SIZE rows per delete statement, default 500
  waitTimeout: number;                 // DB_WAIT_TIMEOUT seconds to wait at start-up for an unreachable database, default 60
}

export interface LogConfig {
  level: LogLevel;                     // LOG_LEVEL, default info
  file: string | undefined;            // LOG_FILE
}

export interface JwtConfig {
  secret: string | undefined;          // JWT_SECRET (required unless JWT_KEYS is set)
  keys: Jwk[] | undefined;             // JWT_KEYS: JSON array, exactly one key with key_ops containing "sign"
  keyId: string | undefined;           // JWT_KEY_ID: kid for the HS256 JWT_SECRET key
  exp: number;                         // JWT_EXP seconds, default 3600
  aud: string;                         // JWT_AUD, default 'authenticated'
  issuer: string | undefined;          // JWT_ISSUER; iss omitted when unset (reference §3.1)
  adminRoles: string[];                // JWT_ADMIN_ROLES, default ['service_role', 'supabase_admin']
  requireExp: boolean;                 // JWT_REQUIRE_EXP: refuse admin tokens without exp (GoTrue accepts them), default false
  defaultGroupName: string;            // JWT_DEFAULT_GROUP_NAME, default 'authenticated'
  adminGroupName: string;              // JWT_ADMIN_GROUP_NAME, default 'admin'
}

export interface ProviderConfig {
  enabled: boolean;                    // EXTERNAL_<X>_ENABLED, default false
  clientId: string | undefined;        // EXTERNAL_<X>_CLIENT_ID (required when enabled)
  secret: string | undefined;          // EXTERNAL_<X>_SECRET (required when enabled)
  redirectUri: string | undefined;     // EXTERNAL_<X>_REDIRECT_URI (required when enabled, URL)
  url: string | undefined;             // EXTERNAL_<X>_URL (base URL override, e.g. keycloak/gitlab or a test server)
}

export interface ExternalConfig {
  email: { enabled: boolean };          // EXTERNAL_EMAIL_ENABLED, default true
  phone: { enabled: boolean };          // EXTERNAL_PHONE_ENABLED, default false
  anonymousUsers: { enabled: boolean }; // EXTERNAL_ANONYMOUS_USERS_ENABLED, default false
  providers: Record<ProviderName, ProviderConfig>;
  allowedIdTokenIssuers: string[];     // ALLOWED_ID_TOKEN_ISSUERS: issuers accepted by grant_type=id_token with client_id + issuer
  idTokenIssuerClientIds: Record<string, string[]>; // ID_TOKEN_ISSUER_CLIENT_IDS: "<issuer>=<id>[ <id>…];…", the audiences
                                       // each allowed issuer's tokens must carry (required for every allowed issuer)
  web3: { ethereum: Web3ChainConfig; solana: Web3ChainConfig };
}

export interface Web3ChainConfig {
  enabled: boolean;                    // EXTERNAL_WEB3_ETHEREUM_ENABLED / EXTERNAL_WEB3_SOLANA_ENABLED, default false
  maximumValidityDuration: number;     // EXTERNAL_WEB3_<CHAIN>_MAXIMUM_VALIDITY_DURATION seconds, default 600: how long
                                       // after (or before) its Issued At a signed message is accepted; also a nonce's life
}

export interface PasswordConfig {
  minLength: number;                   // PASSWORD_MIN_LENGTH, default 6 (min 6)
  requiredCharacters: string[];        // PASSWORD_REQUIRED_CHARACTERS split on ':' ('\:' = literal colon), default []
  bcryptCost: number;                  // BCRYPT_COST, default 10, 4..15 (tests lower it)
}

export interface CaptchaConfig {
  enabled: boolean;                    // SECURITY_CAPTCHA_ENABLED, default false
  provider: CaptchaProviderName | undefined; // SECURITY_CAPTCHA_PROVIDER (required when enabled)
  secret: string | undefined;          // SECURITY_CAPTCHA_SECRET (required when enabled)
  timeout: number;                     // SECURITY_CAPTCHA_TIMEOUT seconds (duration), default 10
  url: string | undefined;             // SECURITY_CAPTCHA_URL: verify-endpoint override (tests point it at 127.0.0.1)
}

export interface SecurityConfig {
  refreshTokenRotationEnabled: boolean;          // SECURITY_REFRESH_TOKEN_ROTATION_ENABLED, default true
  refreshTokenReuseInterval: number;             // SECURITY_REFRESH_TOKEN_REUSE_INTERVAL seconds (duration), default 10
  updatePasswordRequireReauthentication: boolean; // SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION, default false
  sbForwardedForEnabled: boolean;                // SECURITY_SB_FORWARDED_FOR_ENABLED, default false
  manualLinkingEnabled: boolean;                 // SECURITY_MANUAL_LINKING_ENABLED, default false
  captcha: CaptchaConfig;
}

export interface RateLimitConfig {
  header: string | undefined;          // RATE_LIMIT_HEADER
  emailSent: number;                   // RATE_LIMIT_EMAIL_SENT: emails per emailSentPeriod, default 30 (0 blocks all)
  emailSentPeriod: number;             // seconds, default 3600; set with RATE_LIMIT_EMAIL_SENT="N/duration"
  emailSentPerAddress: number;         // RATE_LIMIT_EMAIL_SENT_PER_ADDRESS per emailSentPeriod, default 5
  emailSentPerClient: number;          // RATE_LIMIT_EMAIL_SENT_PER_CLIENT per emailSentPeriod, default 10
  smsSent: number;                     // RATE_LIMIT_SMS_SENT per hour, default 30; half of it is kept for confirmed numbers
  smsSentPerNumber: number;            // RATE_LIMIT_SMS_SENT_PER_NUMBER per hour, default 5
  smsSentPerClient: number;            // RATE_LIMIT_SMS_SENT_PER_CLIENT per hour, default 10
  smsSentPerUser: number;              // RATE_LIMIT_SMS_SENT_PER_USER per hour, default 10
  tokenRefresh: number;                // RATE_LIMIT_TOKEN_REFRESH per 5 min, default 150
  verify: number;                      // RATE_LIMIT_VERIFY per 5 min, default 30
  otp: number;                         // RATE_LIMIT_OTP per 5 min, default 30
  anonymousUsers: number;              // RATE_LIMIT_ANONYMOUS_USERS per hour, default 30
  sso: number;                         // RATE_LIMIT_SSO per 5 min (POST /sso), default 30
  web3: number;                        // RATE_LIMIT_WEB3 per 5 min (grant_type=web3 and GET /web3/nonce), default 30
}

export interface SmtpConfig {
  host: string | undefined;            // SMTP_HOST; unset = mail is logged, not sent
  port: number | undefined;            // SMTP_PORT (required when SMTP_HOST is set)
  user: string | undefined;            // SMTP_USER
  pass: string | undefined;            // SMTP_PASS
  adminEmail: string | undefined;      // SMTP_ADMIN_EMAIL: From address (required when SMTP_HOST is set)
  senderName: string | undefined;      // SMTP_SENDER_NAME, default SMTP_ADMIN_EMAIL
  maxFrequency: number;                // SMTP_MAX_FREQUENCY seconds (duration), default 900
}

export interface MailerConfig {
  autoconfirm: boolean;                // MAILER_AUTOCONFIRM, default false
  otpExp: number;                      // MAILER_OTP_EXP seconds, default 86400
  otpLength: number;                   // MAILER_OTP_LENGTH, default 6, 6..10
  secureEmailChangeEnabled: boolean;   // MAILER_SECURE_EMAIL_CHANGE_ENABLED, default true
  urlPaths: { invite: string; confirmation: string; recovery: string; emailChange: string }; // MAILER_URLPATHS_*, default /verify
  subjects: Record<MailKind, string>;  // MAILER_SUBJECTS_<KIND>, defaults from the spec
  templates: Record<MailKind, string | undefined>; // MAILER_TEMPLATES_<KIND>: http(s) URL of an HTML template
  notifications: Record<NotificationKind, boolean>; // MAILER_NOTIFICATIONS_<KIND>_ENABLED, default false
}

export interface SmsConfig {
  autoconfirm: boolean;                // SMS_AUTOCONFIRM, default false
  maxFrequency: number;                // SMS_MAX_FREQUENCY seconds (duration), default 60
  otpExp: number;                      // SMS_OTP_EXP seconds, default 60
  otpLength: number;                   // SMS_OTP_LENGTH, default 6, 6..10
  template: string;                    // SMS_TEMPLATE, default 'Your code is {{ .Code }}'
  provider: SmsProviderName | undefined; // SMS_PROVIDER; its credentials are required when set
  testOtp: Readonly<Record<string, string>>; // SMS_TEST_OTP "phone:otp,…" (phones without +): fixed codes, nothing sent
  testOtpValidUntil: Date | undefined; // SMS_TEST_OTP_VALID_UNTIL (RFC 3339): test codes stop working after it
  // Each provider's baseUrl (SMS_<PROVIDER>_BASE_URL) overrides its public API host, e.g. for a test server.
  twilio: { accountSid: string | undefined; authToken: string | undefined; messageServiceSid: string | undefined; baseUrl: string | undefined };
  messagebird: { accessKey: string | undefined; originator: string | undefined; baseUrl: string | undefined };
  textlocal: { apiKey: string | undefined; sender: string | undefined; baseUrl: string | undefined };
  vonage: { apiKey: string | undefined; apiSecret: string | undefined; from: string | undefined; baseUrl: string | undefined };
}

export interface MfaConfig {
  totp: { enrollEnabled: boolean; verifyEnabled: boolean }; // MFA_TOTP_ENROLL_ENABLED / _VERIFY_ENABLED, default true
  phone: {
    enrollEnabled: boolean;            // MFA_PHONE_ENROLL_ENABLED, default false
    verifyEnabled: boolean;            // MFA_PHONE_VERIFY_ENABLED, default false
    maxFrequency: number;              // MFA_PHONE_MAX_FREQUENCY seconds between codes to one factor, default 5
    otpLength: number;                 // MFA_PHONE_OTP_LENGTH, default 6
    template: string;                  // MFA_PHONE_TEMPLATE, default 'Your code is {{ .Code }}'
  };
  maxEnrolledFactors: number;          // MFA_MAX_ENROLLED_FACTORS, default 10
  maxVerifiedFactors: number;          // MFA_MAX_VERIFIED_FACTORS, default 10
  challengeExpiry: number;             // MFA_CHALLENGE_EXPIRY_DURATION seconds, default 300
  rateLimitChallengeAndVerify: number; // MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY per minute, per client and per user, default 15
  recoveryCodes: { enrollEnabled: boolean; verifyEnabled: boolean }; // MFA_RECOVERY_CODES_ENROLL_ENABLED / _VERIFY_ENABLED, default false
}

export interface TracingConfig {
  enabled: boolean;                    // TRACING_ENABLED, default false
  exporter: 'opentelemetry';           // TRACING_EXPORTER, only opentelemetry
  resourceAttributes: Record<string, string>; // OTEL_RESOURCE_ATTRIBUTES "k=v,k2=v2"
  debug: boolean;                      // DEBUG, default false
}

export interface MetricsConfig {
  enabled: boolean;                    // METRICS_ENABLED, default false
  exporter: 'opentelemetry' | 'prometheus'; // METRICS_EXPORTER, default opentelemetry
  prometheusHost: string;              // OTEL_EXPORTER_PROMETHEUS_HOST, default 0.0.0.0
  prometheusPort: number;              // OTEL_EXPORTER_PROMETHEUS_PORT, default 9100
}

/** Auth hooks (schema-hooks.ts). */
export type HookName = 'customAccessToken' | 'sendEmail' | 'sendSms' | 'mfaVerificationAttempt' | 'passwordVerificationAttempt' | 'beforeUserCreated';
export type HookTarget =
  | { transport: 'http'; url: string; /** base64 keys of the v1,whsec_ secrets, first used to sign, all sent */ secrets: string[] }
  | { transport: 'postgres'; schema: string; functionName: string };
export type HooksConfig = { [K in HookName]?: HookTarget } & {
  timeoutSeconds: number;              // HOOK_HTTP_TIMEOUT (Keyzone), default 5 (GoTrue's fixed timeout)
};

/** WebAuthn factor and passkeys (schema-webauthn.ts). */
export interface WebAuthnConfig {
  rpId: string;                        // WEBAUTHN_RP_ID, required when any WebAuthn feature is on
  rpDisplayName: string;               // WEBAUTHN_RP_DISPLAY_NAME, default the RP ID
  rpOrigins: string[];                 // WEBAUTHN_RP_ORIGINS, comma-separated, required when any WebAuthn feature is on
  mfaEnrollEnabled: boolean;           // MFA_WEB_AUTHN_ENROLL_ENABLED, default false (GoTrue)
  mfaVerifyEnabled: boolean;           // MFA_WEB_AUTHN_VERIFY_ENABLED, default false (GoTrue)
  passkeyEnabled: boolean;             // PASSKEY_ENABLED (Keyzone): passkey registration and sign-in, default false
}

/** SAML 2.0 single sign-on (schema-saml.ts). */
export interface SamlConfig {
  enabled: boolean;                    // SAML_ENABLED, default false
  privateKeyPem: string | undefined;   // SAML_PRIVATE_KEY (RSA, base64 DER or PEM), as PKCS#8 PEM; required when enabled
  allowEncryptedAssertions: boolean;   // SAML_ALLOW_ENCRYPTED_ASSERTIONS, default false
  relayStateValiditySeconds: number;   // SAML_RELAY_STATE_VALIDITY_PERIOD, default 2m (GoTrue's)
  externalUrl: string;                 // SAML_EXTERNAL_URL, default API_EXTERNAL_URL: the base of the entity ID and ACS URL
  rateLimitAssertion: number;          // SAML_RATE_LIMIT_ASSERTION per second per client at the ACS, default 15
  metadataRefreshSeconds: number;      // SAML_METADATA_REFRESH_PERIOD (Keyzone): metadata_url re-read when older, default 24h
}

/** Keyzone as an OAuth 2.1 / OpenID Connect authorization server (schema-oauth-server.ts). */
export interface OAuthServerConfig {
  enabled: boolean;                    // OAUTH_SERVER_ENABLED, default false; needs an asymmetric key in JWT_KEYS
  allowDynamicRegistration: boolean;   // OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: RFC 7591 POST /oauth/clients/register, default false
  authorizationPath: string | undefined; // OAUTH_SERVER_AUTHORIZATION_PATH on SITE_URL; unset = the auth server's own consent page
  authorizationTtl: number;            // OAUTH_SERVER_AUTHORIZATION_TTL seconds (duration) to sign in and consent, default 10m
  defaultScope: string;                // OAUTH_SERVER_DEFAULT_SCOPE when /oauth/authorize names none, default 'email'
  rateLimitDynamicRegister: number;    // RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER per hour per client, default 10
}

export interface AuthConfig {
  siteUrl: string;                     // SITE_URL (required, URL)
  uriAllowList: string[];              // URI_ALLOW_LIST, comma-separated globs, default []
  disableSignup: boolean;              // DISABLE_SIGNUP, default false
  operatorToken: string | undefined;   // OPERATOR_TOKEN (multi-instance mode; unsupported)
  api: ApiConfig;
  db: DbConfig;
  log: LogConfig;
  jwt: JwtConfig;
  external: ExternalConfig;
  password: PasswordConfig;
  security: SecurityConfig;
  rateLimit: RateLimitConfig;
  smtp: SmtpConfig;
  mailer: MailerConfig;
  sms: SmsConfig;
  mfa: MfaConfig;
  tracing: TracingConfig;
  metrics: MetricsConfig;
  hooks: HooksConfig;
  saml: SamlConfig;
  webauthn: WebAuthnConfig;
  oauthServer: OAuthServerConfig;
  customOAuth: CustomOAuthConfig;
  outbound: OutboundConfig;
  console: ConsoleConfig;
}

/** The admin console at /admin/console/ (schema-console.ts). */
export interface ConsoleConfig {
  enabled: boolean;                    // CONSOLE_ENABLED, default true: the screens are served
  requireAal2: boolean;                // CONSOLE_REQUIRE_AAL2, default true: an admin needs a second factor to enter
}

/** Custom OAuth/OIDC providers managed by the admin API (schema-custom-oauth.ts). */
export interface CustomOAuthConfig {
  enabled: boolean;                    // CUSTOM_OAUTH_ENABLED, default true (off when no key material exists)
  maxProviders: number;                // CUSTOM_OAUTH_MAX_PROVIDERS, default 0 = no limit
  discoveryRefreshSeconds: number;     // CUSTOM_OAUTH_DISCOVERY_REFRESH_PERIOD, default 1h: stored discovery documents older are re-read
  secretKeyMaterial: string | undefined; // SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY, else JWT_SECRET: seals client secrets
}

/** Where server-side fetches of admin-typed URLs may go (schema-custom-oauth.ts). */
export interface OutboundConfig {
  allowedNetworks: string[];           // OUTBOUND_ALLOWED_NETWORKS: CIDRs otherwise refused (private, loopback, ...), default none
}
