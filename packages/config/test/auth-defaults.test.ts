// Every default of the auth configuration, from the smallest accepted environment.
import { loadAuthConfig, MAIL_KINDS, PROVIDER_NAMES } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, tempDir } from './helpers';

afterEach(cleanupTempDirs);

describe('defaults', () => {
  const config = () => loadAuthConfig({ env: { ...MINIMAL_ENV }, cwd: tempDir() });

  it('top level, API, DB and logging', () => {
    const c = config();
    expect(c.siteUrl).toBe('http://localhost:3000');
    expect(c.uriAllowList).toEqual([]);
    expect(c.disableSignup).toBe(false);
    expect(c.operatorToken).toBeUndefined();
    expect(c.api).toEqual({
      host: undefined, port: 8081, externalUrl: 'http://localhost:8081', requestIdHeader: undefined, endpoint: undefined, trustedProxies: [],
    });
    expect(c.db).toEqual({ driver: 'postgres', url: MINIMAL_ENV.DATABASE_URL, maxPoolSize: 0, preparedStatements: true, namespace: undefined, cleanupInterval: 600, cleanupBatchSize: 500, waitTimeout: 60 });
    expect(c.log).toEqual({ level: 'info', file: undefined });
  });

  it('JWT', () => {
    expect(config().jwt).toEqual({
      secret: MINIMAL_ENV.AUTH_JWT_SECRET, keys: undefined, keyId: undefined, exp: 3600, aud: 'authenticated',
      issuer: undefined, adminRoles: ['service_role', 'supabase_admin'], defaultGroupName: 'authenticated',
      adminGroupName: 'admin', requireExp: false,
    });
  });

  it('external sign-in methods and all 18 providers, disabled', () => {
    const { external } = config();
    expect(external.email.enabled).toBe(true);
    expect(external.phone.enabled).toBe(false);
    expect(external.anonymousUsers.enabled).toBe(false);
    expect(Object.keys(external.providers).sort()).toEqual([...PROVIDER_NAMES].sort());
    expect(PROVIDER_NAMES).toHaveLength(18);
    for (const name of PROVIDER_NAMES) {
      expect(external.providers[name]).toEqual({
        enabled: false, clientId: undefined, secret: undefined, redirectUri: undefined, url: undefined,
      });
    }
  });

  it('password, security and rate limits', () => {
    const c = config();
    expect(c.password).toEqual({ minLength: 6, requiredCharacters: [], bcryptCost: 10 });
    expect(c.security).toEqual({
      refreshTokenRotationEnabled: true, refreshTokenReuseInterval: 10, updatePasswordRequireReauthentication: false,
      sbForwardedForEnabled: false, manualLinkingEnabled: false,
      captcha: { enabled: false, provider: undefined, secret: undefined, timeout: 10, url: undefined },
    });
    expect(c.rateLimit).toEqual({
      header: undefined, emailSent: 30, emailSentPeriod: 3600, emailSentPerAddress: 5, emailSentPerClient: 10,
      smsSent: 30, smsSentPerNumber: 5, smsSentPerClient: 10, smsSentPerUser: 10, tokenRefresh: 150, verify: 30, otp: 30, anonymousUsers: 30, sso: 30, web3: 30,
    });
  });

  it('SMTP and mailer, with the spec subjects', () => {
    const c = config();
    expect(c.smtp).toEqual({
      host: undefined, port: undefined, user: undefined, pass: undefined, adminEmail: undefined, senderName: undefined,
      maxFrequency: 900,
    });
    expect(c.mailer.autoconfirm).toBe(false);
    expect(c.mailer.otpExp).toBe(86400);
    expect(c.mailer.otpLength).toBe(6);
    expect(c.mailer.secureEmailChangeEnabled).toBe(true);
    expect(c.mailer.urlPaths).toEqual({ invite: '/verify', confirmation: '/verify', recovery: '/verify', emailChange: '/verify' });
    expect(c.mailer.subjects).toEqual({
      invite: "You've been invited",
      confirmation: 'Confirm your email address',
      recovery: 'Reset your password',
      magicLink: 'Your sign-in link',
      emailChange: 'Confirm your new email address',
      reauthentication: '{{ .Token }} is your verification code',
      passwordChangedNotification: 'Your password was changed',
      emailChangedNotification: 'Your email address was changed',
      phoneChangedNotification: 'Your phone number was changed',
      identityLinkedNotification: 'A new sign-in method was linked to your account',
      identityUnlinkedNotification: 'A sign-in method was removed from your account',
      mfaFactorEnrolledNotification: 'A new verification method was added to your account',
      mfaFactorUnenrolledNotification: 'A verification method was removed from your account',
    });
    expect(Object.keys(c.mailer.templates).sort()).toEqual([...MAIL_KINDS].sort());
    expect(Object.values(c.mailer.templates).every((t) => t === undefined)).toBe(true);
    expect(c.mailer.notifications).toEqual({
      passwordChanged: false, emailChanged: false, phoneChanged: false, identityLinked: false, identityUnlinked: false,
      mfaFactorEnrolled: false, mfaFactorUnenrolled: false,
    });
  });

  it('SMS', () => {
    expect(config().sms).toEqual({
      autoconfirm: false, maxFrequency: 60, otpExp: 60, otpLength: 6, template: 'Your code is {{ .Code }}',
      provider: undefined, testOtp: {}, testOtpValidUntil: undefined,
      twilio: { accountSid: undefined, authToken: undefined, messageServiceSid: undefined, baseUrl: undefined },
      messagebird: { accessKey: undefined, originator: undefined, baseUrl: undefined },
      textlocal: { apiKey: undefined, sender: undefined, baseUrl: undefined },
      vonage: { apiKey: undefined, apiSecret: undefined, from: undefined, baseUrl: undefined },
    });
  });

  it('observability', () => {
    const c = config();
    expect(c.tracing).toEqual({ enabled: false, exporter: 'opentelemetry', resourceAttributes: {}, debug: false });
    expect(c.metrics).toEqual({ enabled: false, exporter: 'opentelemetry', prometheusHost: '0.0.0.0', prometheusPort: 9100 });
  });

  it('is deeply frozen', () => {
    const c = config();
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.jwt)).toBe(true);
    expect(Object.isFrozen(c.jwt.adminRoles)).toBe(true);
    expect(Object.isFrozen(c.external.providers.github)).toBe(true);
    expect(Object.isFrozen(c.mailer.subjects)).toBe(true);
    expect(() => { (c.jwt as { exp: number }).exp = 1; }).toThrow(TypeError);
    expect(() => { (c.jwt.adminRoles as string[]).push('x'); }).toThrow(TypeError);
    expect(c.jwt.exp).toBe(3600);
  });
});
