// SMTP, mailer and SMS settings.
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>) => loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir() });
const problems = (env: Record<string, string>) => configError(() => load(env)).problems;

describe('SMTP', () => {
  it('reads every variable; the sender name defaults to the admin email', () => {
    const c = load({
      AUTH_SMTP_HOST: '127.0.0.1', AUTH_SMTP_PORT: '2525', AUTH_SMTP_USER: 'u', AUTH_SMTP_PASS: 'p',
      AUTH_SMTP_ADMIN_EMAIL: 'admin@example.com', AUTH_SMTP_MAX_FREQUENCY: '1m',
    });
    expect(c.smtp).toEqual({
      host: '127.0.0.1', port: 2525, user: 'u', pass: 'p', adminEmail: 'admin@example.com',
      senderName: 'admin@example.com', maxFrequency: 60,
    });
    expect(load({ AUTH_SMTP_ADMIN_EMAIL: 'a@b.co', AUTH_SMTP_SENDER_NAME: 'Keyzone' }).smtp.senderName).toBe('Keyzone');
  });

  it('requires the admin email and port when SMTP_HOST is set', () => {
    expect(problems({ GOTRUE_SMTP_HOST: 'mail' })).toEqual([
      'AUTH_SMTP_ADMIN_EMAIL: required when GOTRUE_SMTP_HOST is set',
      'AUTH_SMTP_PORT: required when GOTRUE_SMTP_HOST is set',
    ]);
  });

  it('never echoes SMTP_PASS and checks the admin email', () => {
    expect(problems({ AUTH_SMTP_ADMIN_EMAIL: 'not an email' }))
      .toEqual(['AUTH_SMTP_ADMIN_EMAIL: expected an email address, got "not an email"']);
  });
});

describe('mailer', () => {
  it('reads switches, lengths, URL paths, subjects, templates and notifications', () => {
    const c = load({
      AUTH_MAILER_AUTOCONFIRM: 'true', AUTH_MAILER_OTP_EXP: '3600', AUTH_MAILER_OTP_LENGTH: '8',
      AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED: 'false',
      AUTH_MAILER_URLPATHS_INVITE: '/auth/v1/verify', AUTH_MAILER_URLPATHS_CONFIRMATION: '/c',
      AUTH_MAILER_URLPATHS_RECOVERY: '/r', AUTH_MAILER_URLPATHS_EMAIL_CHANGE: '/e',
      AUTH_MAILER_SUBJECTS_MAGIC_LINK: 'Sign in', GOTRUE_MAILER_SUBJECTS_MFA_FACTOR_UNENROLLED_NOTIFICATION: 'Factor gone',
      AUTH_MAILER_TEMPLATES_INVITE: 'http://127.0.0.1:4010/invite.html',
      AUTH_MAILER_TEMPLATES_EMAIL_CHANGED_NOTIFICATION: 'https://cdn.example.com/changed.html',
      AUTH_MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED: 'true',
      AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED: '1',
    });
    expect(c.mailer).toMatchObject({
      autoconfirm: true, otpExp: 3600, otpLength: 8, secureEmailChangeEnabled: false,
      urlPaths: { invite: '/auth/v1/verify', confirmation: '/c', recovery: '/r', emailChange: '/e' },
    });
    expect(c.mailer.subjects.magicLink).toBe('Sign in');
    expect(c.mailer.subjects.mfaFactorUnenrolledNotification).toBe('Factor gone');
    expect(c.mailer.subjects.invite).toBe("You've been invited");
    expect(c.mailer.templates.invite).toBe('http://127.0.0.1:4010/invite.html');
    expect(c.mailer.templates.emailChangedNotification).toBe('https://cdn.example.com/changed.html');
    expect(c.mailer.templates.recovery).toBeUndefined();
    expect(c.mailer.notifications).toMatchObject({ passwordChanged: true, mfaFactorEnrolled: true, emailChanged: false });
  });

  it('checks the OTP length (6..10) and template URLs', () => {
    expect(problems({ AUTH_MAILER_OTP_LENGTH: '5', AUTH_MAILER_TEMPLATES_RECOVERY: 'file:///etc/passwd' })).toEqual([
      'AUTH_MAILER_TEMPLATES_RECOVERY: expected an absolute http or https URL, got "file:///etc/passwd"',
      'AUTH_MAILER_OTP_LENGTH: expected a number from 6 to 10, got "5"',
    ]);
    expect(problems({ AUTH_MAILER_OTP_LENGTH: '11' })).toEqual(['AUTH_MAILER_OTP_LENGTH: expected a number from 6 to 10, got "11"']);
  });
});

describe('SMS', () => {
  it('reads the settings and each provider with its base URL override', () => {
    const c = load({
      AUTH_SMS_AUTOCONFIRM: 'true', AUTH_SMS_MAX_FREQUENCY: '30s', AUTH_SMS_OTP_EXP: '120', AUTH_SMS_OTP_LENGTH: '10',
      AUTH_SMS_TEMPLATE: 'Code: {{ .Code }}', AUTH_SMS_PROVIDER: 'Twilio',
      AUTH_SMS_TWILIO_ACCOUNT_SID: 'AC1', AUTH_SMS_TWILIO_AUTH_TOKEN: 'tok', AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: '+15550100',
      AUTH_SMS_TWILIO_BASE_URL: 'http://127.0.0.1:4020',
      AUTH_SMS_MESSAGEBIRD_ACCESS_KEY: 'mk', AUTH_SMS_MESSAGEBIRD_ORIGINATOR: 'Keyzone',
      AUTH_SMS_MESSAGEBIRD_BASE_URL: 'http://127.0.0.1:4021',
      AUTH_SMS_TEXTLOCAL_API_KEY: 'tk', AUTH_SMS_TEXTLOCAL_SENDER: 'KZ', AUTH_SMS_TEXTLOCAL_BASE_URL: 'http://127.0.0.1:4022',
      AUTH_SMS_VONAGE_API_KEY: 'vk', AUTH_SMS_VONAGE_API_SECRET: 'vs', AUTH_SMS_VONAGE_FROM: 'KZ',
      AUTH_SMS_VONAGE_BASE_URL: 'http://127.0.0.1:4023',
    });
    expect(c.sms).toEqual({
      autoconfirm: true, maxFrequency: 30, otpExp: 120, otpLength: 10, template: 'Code: {{ .Code }}', provider: 'twilio',
      testOtp: {}, testOtpValidUntil: undefined,
      twilio: { accountSid: 'AC1', authToken: 'tok', messageServiceSid: '+15550100', baseUrl: 'http://127.0.0.1:4020' },
      messagebird: { accessKey: 'mk', originator: 'Keyzone', baseUrl: 'http://127.0.0.1:4021' },
      textlocal: { apiKey: 'tk', sender: 'KZ', baseUrl: 'http://127.0.0.1:4022' },
      vonage: { apiKey: 'vk', apiSecret: 'vs', from: 'KZ', baseUrl: 'http://127.0.0.1:4023' },
    });
  });

  it.each([
    ['twilio', ['SMS_TWILIO_ACCOUNT_SID', 'SMS_TWILIO_AUTH_TOKEN', 'SMS_TWILIO_MESSAGE_SERVICE_SID']],
    ['messagebird', ['SMS_MESSAGEBIRD_ACCESS_KEY', 'SMS_MESSAGEBIRD_ORIGINATOR']],
    ['textlocal', ['SMS_TEXTLOCAL_API_KEY', 'SMS_TEXTLOCAL_SENDER']],
    ['vonage', ['SMS_VONAGE_API_KEY', 'SMS_VONAGE_API_SECRET', 'SMS_VONAGE_FROM']],
  ])('requires %s credentials when it is the provider', (provider, names) => {
    expect(problems({ AUTH_SMS_PROVIDER: provider }))
      .toEqual(names.map((n) => `AUTH_${n}: required when AUTH_SMS_PROVIDER is ${provider}`));
  });

  it('reads SMS_TEST_OTP (numbers without +) and SMS_TEST_OTP_VALID_UNTIL, and names malformed ones', () => {
    const c = load({ AUTH_SMS_TEST_OTP: '+15551234567:123456, 4915112345678:654321', AUTH_SMS_TEST_OTP_VALID_UNTIL: '2027-01-01T00:00:00Z' });
    expect(c.sms.testOtp).toEqual({ '15551234567': '123456', '4915112345678': '654321' });
    expect(c.sms.testOtpValidUntil).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(problems({ AUTH_SMS_TEST_OTP: '12ab:1', AUTH_SMS_TEST_OTP_VALID_UNTIL: 'tomorrow' })).toEqual([
      'AUTH_SMS_TEST_OTP: expected phone:code pairs separated by commas (e.g. 15551234567:123456), got "12ab:1"',
      'AUTH_SMS_TEST_OTP_VALID_UNTIL: expected an RFC 3339 time (e.g. 2026-12-31T23:59:59Z), got "tomorrow"',
    ]);
  });

  it('phone sign-in needs a provider, unless every code is a test code or sign-ups confirm themselves', () => {
    expect(problems({ AUTH_EXTERNAL_PHONE_ENABLED: 'true' }))
      .toEqual(['AUTH_SMS_PROVIDER: required when AUTH_EXTERNAL_PHONE_ENABLED is true (or set AUTH_SMS_TEST_OTP)']);
    expect(load({ AUTH_EXTERNAL_PHONE_ENABLED: 'true', AUTH_SMS_TEST_OTP: '15551234567:123456' }).external.phone.enabled).toBe(true);
    expect(load({ AUTH_EXTERNAL_PHONE_ENABLED: 'true', AUTH_SMS_AUTOCONFIRM: 'true' }).external.phone.enabled).toBe(true);
  });

  it('rejects an unknown provider', () => {
    expect(problems({ AUTH_SMS_PROVIDER: 'carrier-pigeon' }))
      .toEqual(['AUTH_SMS_PROVIDER: expected one of twilio, messagebird, textlocal, vonage, got "carrier-pigeon"']);
  });
});

describe('MFA', () => {
  it('defaults: TOTP on, phone off, 10 factors, 300 s challenges; every setting read', () => {
    expect(load({}).mfa).toEqual({
      totp: { enrollEnabled: true, verifyEnabled: true },
      phone: { enrollEnabled: false, verifyEnabled: false, maxFrequency: 5, otpLength: 6, template: 'Your code is {{ .Code }}' },
      maxEnrolledFactors: 10, maxVerifiedFactors: 10, challengeExpiry: 300, rateLimitChallengeAndVerify: 15,
      recoveryCodes: { enrollEnabled: false, verifyEnabled: false },
    });
    expect(load({ AUTH_MFA_RECOVERY_CODES_ENROLL_ENABLED: 'true', GOTRUE_MFA_RECOVERY_CODES_VERIFY_ENABLED: 'true' }).mfa.recoveryCodes)
      .toEqual({ enrollEnabled: true, verifyEnabled: true });
    const c = load({
      AUTH_MFA_TOTP_ENROLL_ENABLED: 'false', AUTH_MFA_PHONE_ENROLL_ENABLED: 'true', AUTH_MFA_PHONE_VERIFY_ENABLED: 'true',
      AUTH_MFA_PHONE_MAX_FREQUENCY: '1m', AUTH_MFA_PHONE_OTP_LENGTH: '8', AUTH_MFA_MAX_ENROLLED_FACTORS: '3', AUTH_MFA_CHALLENGE_EXPIRY_DURATION: '2m',
    });
    expect(c.mfa).toMatchObject({ totp: { enrollEnabled: false }, phone: { enrollEnabled: true, verifyEnabled: true, maxFrequency: 60, otpLength: 8 }, maxEnrolledFactors: 3, challengeExpiry: 120 });
    expect(problems({ AUTH_MFA_PHONE_OTP_LENGTH: '4' })).toEqual(['AUTH_MFA_PHONE_OTP_LENGTH: expected a number from 6 to 10, got "4"']);
  });
});

describe('observability', () => {
  it('reads tracing and metrics, OTEL_* with or without prefix', () => {
    const c = load({
      AUTH_TRACING_ENABLED: 'true', AUTH_TRACING_EXPORTER: 'opentelemetry', AUTH_DEBUG: 'true',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=auth, deployment.environment=prod%20eu',
      AUTH_METRICS_ENABLED: '1', AUTH_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1', OTEL_EXPORTER_PROMETHEUS_PORT: '9464',
      AUTH_OTEL_EXPORTER_PROMETHEUS_PORT: '9465',
    });
    expect(c.tracing).toEqual({
      enabled: true, exporter: 'opentelemetry', debug: true,
      resourceAttributes: { 'service.name': 'auth', 'deployment.environment': 'prod eu' },
    });
    expect(c.metrics).toEqual({ enabled: true, exporter: 'prometheus', prometheusHost: '127.0.0.1', prometheusPort: 9465 });
  });

  it('rejects other exporters', () => {
    expect(problems({ AUTH_TRACING_EXPORTER: 'jaeger', AUTH_METRICS_EXPORTER: 'statsd' })).toEqual([
      'AUTH_TRACING_EXPORTER: expected "opentelemetry", got "jaeger"',
      'AUTH_METRICS_EXPORTER: expected one of opentelemetry, prometheus, got "statsd"',
    ]);
  });
});
