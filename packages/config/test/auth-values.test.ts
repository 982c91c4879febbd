// Each variable maps to its field with its type's coercion.
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>) => loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir() });
const problems = (env: Record<string, string>) => configError(() => load(env)).problems;

const RSA_SIGN = { kty: 'RSA', kid: 'k1', alg: 'RS256', key_ops: ['sign', 'verify'], n: 'x', e: 'AQAB', d: 'y' };
const OCT_VERIFY = { kty: 'oct', kid: 'old', alg: 'HS256', key_ops: ['verify'], k: 'c2VjcmV0' };

describe('top level, API, DB, logging', () => {
  it('reads every variable', () => {
    const c = load({
      AUTH_URI_ALLOW_LIST: 'https://*.example.com, myapp://callback,', AUTH_DISABLE_SIGNUP: 'TRUE',
      AUTH_OPERATOR_TOKEN: 'op', AUTH_API_HOST: '0.0.0.0', PORT: '9999', AUTH_REQUEST_ID_HEADER: 'X-Request-Id',
      AUTH_API_ENDPOINT: 'http://op.example.com', AUTH_DB_DRIVER: 'postgres', AUTH_DB_MAX_POOL_SIZE: '20',
      AUTH_DB_NAMESPACE: 'kz', AUTH_DB_CLEANUP_INTERVAL: '5m', AUTH_DB_CLEANUP_BATCH_SIZE: '100', AUTH_DB_PREPARED_STATEMENTS: 'false',
      AUTH_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7', AUTH_LOG_LEVEL: 'TRACE', AUTH_LOG_FILE: '/tmp/auth.log',
    });
    expect(c.uriAllowList).toEqual(['https://*.example.com', 'myapp://callback']);
    expect(c.disableSignup).toBe(true);
    expect(c.operatorToken).toBe('op');
    expect(c.api).toEqual({
      host: '0.0.0.0', port: 9999, externalUrl: 'http://localhost:8081', requestIdHeader: 'X-Request-Id',
      endpoint: 'http://op.example.com', trustedProxies: ['10.0.0.0/8', '192.0.2.7'],
    });
    expect(c.db).toEqual({ driver: 'postgres', url: MINIMAL_ENV.DATABASE_URL, maxPoolSize: 20, preparedStatements: false, namespace: 'kz', cleanupInterval: 300, cleanupBatchSize: 100, waitTimeout: 60 });
    expect(c.log).toEqual({ level: 'trace', file: '/tmp/auth.log' });
  });

  it('accepts only postgres as DB_DRIVER and postgres/pglite database URLs', () => {
    expect(problems({ AUTH_DB_DRIVER: 'mysql' })).toEqual(['AUTH_DB_DRIVER: expected "postgres", got "mysql"']);
    expect(problems({ DATABASE_URL: 'mysql://u:pw@h/db' })).toEqual([
      'DATABASE_URL: expected an absolute postgres, postgresql or pglite URL',
    ]);
    expect(load({ DATABASE_URL: 'pglite://memory' }).db.url).toBe('pglite://memory');
  });

  it('validates URLs, ports and log levels', () => {
    expect(problems({ AUTH_SITE_URL: 'localhost:3000', PORT: '70000', AUTH_LOG_LEVEL: 'verbose' })).toEqual([
      'AUTH_SITE_URL: expected an absolute http or https URL, got "localhost:3000"',
      'PORT: expected a number from 0 to 65535, got "70000"',
      'AUTH_LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
  });
});

describe('JWT', () => {
  it('reads the scalar settings and lists', () => {
    const c = load({
      AUTH_JWT_EXP: '600', AUTH_JWT_AUD: 'app', AUTH_JWT_ISSUER: 'https://auth.example.com/auth/v1',
      AUTH_JWT_ADMIN_ROLES: 'service_role, admin ,', AUTH_JWT_DEFAULT_GROUP_NAME: 'users',
      AUTH_JWT_ADMIN_GROUP_NAME: 'root', AUTH_JWT_KEY_ID: 'legacy', AUTH_JWT_REQUIRE_EXP: 'true',
    });
    expect(c.jwt).toMatchObject({
      exp: 600, aud: 'app', issuer: 'https://auth.example.com/auth/v1', adminRoles: ['service_role', 'admin'],
      defaultGroupName: 'users', adminGroupName: 'root', keyId: 'legacy', requireExp: true,
    });
  });

  it('parses JWT_KEYS; JWT_SECRET is then optional', () => {
    const { AUTH_JWT_SECRET: _, ...env } = MINIMAL_ENV;
    const c = loadAuthConfig({ env: { ...env, AUTH_JWT_KEYS: JSON.stringify([RSA_SIGN, OCT_VERIFY]) }, cwd: tempDir() });
    expect(c.jwt.secret).toBeUndefined();
    expect(c.jwt.keys).toEqual([RSA_SIGN, OCT_VERIFY]);
  });

  it('needs JWT_SECRET or JWT_KEYS', () => {
    const { AUTH_JWT_SECRET: _, ...env } = MINIMAL_ENV;
    expect(configError(() => loadAuthConfig({ env, cwd: tempDir() })).problems)
      .toEqual(['AUTH_JWT_SECRET: required (or set AUTH_JWT_KEYS)']);
  });

  it.each([
    ['not JSON', '{nope'],
    ['not an array', JSON.stringify(RSA_SIGN)],
    ['an empty array', '[]'],
    ['a key without kty', JSON.stringify([{ key_ops: ['sign'], k: 'secret-material' }])],
    ['key_ops not a list', JSON.stringify([{ kty: 'oct', key_ops: 'sign', k: 'secret-material' }])],
  ])('rejects %s without echoing it', (_label, value) => {
    const list = problems({ AUTH_JWT_KEYS: value });
    expect(list).toEqual(['AUTH_JWT_KEYS: expected a JSON array of JWKs']);
    expect(list.join('\n')).not.toContain('secret-material');
  });

  it('needs exactly one signing key', () => {
    expect(problems({ AUTH_JWT_KEYS: JSON.stringify([OCT_VERIFY]) }))
      .toEqual(['AUTH_JWT_KEYS: exactly one key must have key_ops containing "sign" (found 0)']);
    expect(problems({ GOTRUE_JWT_KEYS: JSON.stringify([RSA_SIGN, { ...RSA_SIGN, kid: 'k2' }]) }))
      .toEqual(['GOTRUE_JWT_KEYS: exactly one key must have key_ops containing "sign" (found 2)']);
  });
});

describe('external providers', () => {
  it('reads a provider and the email / phone / anonymous switches', () => {
    const c = load({
      AUTH_EXTERNAL_GITHUB_ENABLED: '1', AUTH_EXTERNAL_GITHUB_CLIENT_ID: 'cid', AUTH_EXTERNAL_GITHUB_SECRET: 'sec',
      AUTH_EXTERNAL_GITHUB_REDIRECT_URI: 'http://localhost:8081/callback', AUTH_EXTERNAL_GITHUB_URL: 'http://127.0.0.1:4000',
      AUTH_EXTERNAL_EMAIL_ENABLED: 'false', AUTH_EXTERNAL_PHONE_ENABLED: 'true', AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: 'True',
      AUTH_SMS_AUTOCONFIRM: 'true',
    });
    expect(c.external.providers.github).toEqual({
      enabled: true, clientId: 'cid', secret: 'sec', redirectUri: 'http://localhost:8081/callback', url: 'http://127.0.0.1:4000',
    });
    expect(c.external.providers.gitlab.enabled).toBe(false);
    expect([c.external.email.enabled, c.external.phone.enabled, c.external.anonymousUsers.enabled]).toEqual([false, true, true]);
  });

  it('requires client id, secret and redirect uri when enabled', () => {
    expect(problems({ GOTRUE_EXTERNAL_KEYCLOAK_ENABLED: 'true', AUTH_EXTERNAL_KEYCLOAK_SECRET: 's' })).toEqual([
      'AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: required when GOTRUE_EXTERNAL_KEYCLOAK_ENABLED is true',
      'AUTH_EXTERNAL_KEYCLOAK_REDIRECT_URI: required when GOTRUE_EXTERNAL_KEYCLOAK_ENABLED is true',
      // Keycloak has no public host: the realm URL is the operator's.
      'AUTH_EXTERNAL_KEYCLOAK_URL: required when GOTRUE_EXTERNAL_KEYCLOAK_ENABLED is true',
    ]);
  });

  it('reads ALLOWED_ID_TOKEN_ISSUERS and SECURITY_MANUAL_LINKING_ENABLED', () => {
    const c = load({
      AUTH_ALLOWED_ID_TOKEN_ISSUERS: 'https://a.example, https://b.example/', AUTH_SECURITY_MANUAL_LINKING_ENABLED: 'true',
      AUTH_ID_TOKEN_ISSUER_CLIENT_IDS: 'https://a.example=web ios; https://b.example=b-client',
    });
    expect(c.external.allowedIdTokenIssuers).toEqual(['https://a.example', 'https://b.example/']);
    expect(c.external.idTokenIssuerClientIds).toEqual({ 'https://a.example': ['web', 'ios'], 'https://b.example': ['b-client'] });
    // every allowed issuer needs the client ids its tokens are issued to (issue 26)
    expect(problems({ AUTH_ALLOWED_ID_TOKEN_ISSUERS: 'https://a.example' }))
      .toEqual(['AUTH_ID_TOKEN_ISSUER_CLIENT_IDS: required for https://a.example of AUTH_ALLOWED_ID_TOKEN_ISSUERS (the client ids its ID tokens are issued to)']);
    expect(c.security.manualLinkingEnabled).toBe(true);
    expect(load({}).security.manualLinkingEnabled).toBe(false);
  });

  it('reads the Web3 chains (GoTrue\'s EXTERNAL_WEB3_<CHAIN>_*), off by default with a 10-minute window', () => {
    expect(load({}).external.web3).toEqual({
      ethereum: { enabled: false, maximumValidityDuration: 600 }, solana: { enabled: false, maximumValidityDuration: 600 },
    });
    const c = load({
      AUTH_EXTERNAL_WEB3_ETHEREUM_ENABLED: 'true', GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED: 'true', AUTH_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION: '5m',
    });
    expect(c.external.web3).toEqual({ ethereum: { enabled: true, maximumValidityDuration: 600 }, solana: { enabled: true, maximumValidityDuration: 300 } });
    expect(problems({ AUTH_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION: 'soon' })[0]).toMatch(/^AUTH_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION: expected a duration/);
  });
});

describe('password, security, rate limits', () => {
  it('reads every variable', () => {
    const c = load({
      AUTH_PASSWORD_MIN_LENGTH: '12', AUTH_PASSWORD_REQUIRED_CHARACTERS: 'abc:ABC:123:\\:;', AUTH_BCRYPT_COST: '4',
      AUTH_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: 'false', AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: '1m',
      AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: '1', AUTH_SECURITY_SB_FORWARDED_FOR_ENABLED: 'true',
      AUTH_SECURITY_CAPTCHA_ENABLED: 'true', AUTH_SECURITY_CAPTCHA_PROVIDER: 'Turnstile',
      AUTH_SECURITY_CAPTCHA_SECRET: 'cs', AUTH_SECURITY_CAPTCHA_TIMEOUT: '500ms',
      AUTH_SECURITY_CAPTCHA_URL: 'http://127.0.0.1:5000/verify',
      AUTH_RATE_LIMIT_HEADER: 'X-Forwarded-For', AUTH_RATE_LIMIT_EMAIL_SENT: '10/15m', AUTH_RATE_LIMIT_SMS_SENT: '5', AUTH_RATE_LIMIT_SMS_SENT_PER_NUMBER: '2',
      AUTH_RATE_LIMIT_SMS_SENT_PER_CLIENT: '3', AUTH_RATE_LIMIT_SMS_SENT_PER_USER: '4',
      AUTH_RATE_LIMIT_TOKEN_REFRESH: '1000', AUTH_RATE_LIMIT_VERIFY: '7', AUTH_RATE_LIMIT_OTP: '8',
      AUTH_RATE_LIMIT_ANONYMOUS_USERS: '9', GOTRUE_RATE_LIMIT_SSO: '11', GOTRUE_RATE_LIMIT_WEB3: '12', AUTH_RATE_LIMIT_EMAIL_SENT_PER_ADDRESS: '2', AUTH_RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '3',
    });
    expect(c.password).toEqual({ minLength: 12, requiredCharacters: ['abc', 'ABC', '123', ':;'], bcryptCost: 4 });
    expect(c.security).toEqual({
      refreshTokenRotationEnabled: false, refreshTokenReuseInterval: 60, updatePasswordRequireReauthentication: true,
      sbForwardedForEnabled: true, manualLinkingEnabled: false,
      captcha: { enabled: true, provider: 'turnstile', secret: 'cs', timeout: 0.5, url: 'http://127.0.0.1:5000/verify' },
    });
    expect(c.rateLimit).toEqual({
      header: 'X-Forwarded-For', emailSent: 10, emailSentPeriod: 900, emailSentPerAddress: 2, emailSentPerClient: 3,
      smsSent: 5, smsSentPerNumber: 2, smsSentPerClient: 3, smsSentPerUser: 4, tokenRefresh: 1000, verify: 7, otp: 8, anonymousUsers: 9, sso: 11, web3: 12,
    });
    expect(load({ AUTH_RATE_LIMIT_EMAIL_SENT: '0' }).rateLimit).toMatchObject({ emailSent: 0, emailSentPeriod: 3600 });
  });

  it('checks ranges: bcrypt cost 4..15, password length at least 6', () => {
    expect(problems({ AUTH_BCRYPT_COST: '3', AUTH_PASSWORD_MIN_LENGTH: '5' })).toEqual([
      'AUTH_PASSWORD_MIN_LENGTH: expected a number of at least 6, got "5"',
      'AUTH_BCRYPT_COST: expected a number from 4 to 15, got "3"',
    ]);
    expect(problems({ AUTH_BCRYPT_COST: '16' })).toEqual(['AUTH_BCRYPT_COST: expected a number from 4 to 15, got "16"']);
  });

  it('requires a captcha provider and secret when captcha is enabled', () => {
    expect(problems({ AUTH_SECURITY_CAPTCHA_ENABLED: 'true' })).toEqual([
      'AUTH_SECURITY_CAPTCHA_PROVIDER: required when AUTH_SECURITY_CAPTCHA_ENABLED is true',
      'AUTH_SECURITY_CAPTCHA_SECRET: required when AUTH_SECURITY_CAPTCHA_ENABLED is true',
    ]);
  });

  it('rejects bad rate limit syntax', () => {
    expect(problems({ AUTH_RATE_LIMIT_EMAIL_SENT: '10/forever', AUTH_RATE_LIMIT_OTP: '-1' })).toEqual([
      'AUTH_RATE_LIMIT_EMAIL_SENT: expected a count per hour or "count/duration" (e.g. 30 or 10/15m), got "10/forever"',
      'AUTH_RATE_LIMIT_OTP: expected a number of at least 0, got "-1"',
    ]);
  });
});
