// One ConfigError naming every bad variable as written, never echoing secrets; exitOnConfigError.
import { ConfigError, exitOnConfigError, loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

describe('ConfigError', () => {
  it('lists every problem at once, in one message, with names as the user wrote them', () => {
    const err = configError(() => loadAuthConfig({
      cwd: tempDir({ '.env': 'GOTRUE_SMTP_PORT=twenty-five\n' }),
      env: {
        AUTH_JWT_EXP: 'abc',
        GOTRUE_DISABLE_SIGNUP: 'maybe',
        PORT: '80a',
        AUTH_SMTP_MAX_FREQUENCY: 'often',
        AUTH_JWT_KEYS: '[{"kty":"oct","k":"TOP-SECRET-KEY-MATERIAL"}',
        AUTH_SMS_PROVIDER: 'twilio',
        AUTH_SMS_TWILIO_AUTH_TOKEN: 'TWILIO-TOKEN-VALUE',
        AUTH_EXTERNAL_GITHUB_ENABLED: 'yes',
      },
    }));
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ConfigError');
    expect(err.problems).toEqual([
      'AUTH_SITE_URL: required',
      'GOTRUE_DISABLE_SIGNUP: expected a boolean (true, false, 1 or 0), got "maybe"',
      'PORT: expected a number, got "80a"',
      'API_EXTERNAL_URL (or AUTH_API_EXTERNAL_URL): required',
      'DATABASE_URL (or AUTH_DATABASE_URL): required',
      'AUTH_JWT_KEYS: expected a JSON array of JWKs',
      'AUTH_JWT_EXP: expected a number, got "abc"',
      'AUTH_EXTERNAL_GITHUB_ENABLED: expected a boolean (true, false, 1 or 0), got "yes"',
      'GOTRUE_SMTP_PORT: expected a number, got "twenty-five"',
      'AUTH_SMTP_MAX_FREQUENCY: expected a duration in seconds or Go style (e.g. 90, 10s, 1h30m), got "often"',
      'AUTH_SMS_TWILIO_ACCOUNT_SID: required when AUTH_SMS_PROVIDER is twilio',
      'AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: required when AUTH_SMS_PROVIDER is twilio',
    ]);
    expect(err.message).toBe(`Invalid configuration:\n${err.problems.map((p) => `  ${p}`).join('\n')}`);
    expect(err.message).not.toContain('TOP-SECRET');
    expect(err.message).not.toContain('TWILIO-TOKEN');
  });

  it('words a plain number error as the contract example', () => {
    expect(configError(() => loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV, AUTH_JWT_EXP: 'abc' } })).message)
      .toBe('Invalid configuration:\n  AUTH_JWT_EXP: expected a number, got "abc"');
  });

  it('never echoes values of secret-named variables, even when they fail to parse', () => {
    const err = configError(() => loadAuthConfig({
      cwd: tempDir(),
      env: { ...MINIMAL_ENV, DATABASE_URL: 'mysql://user:DB-PASSWORD@host/db' },
    }));
    expect(err.problems).toEqual(['DATABASE_URL: expected an absolute postgres, postgresql or pglite URL']);
    expect(err.message).not.toContain('DB-PASSWORD');
  });
});

describe('exitOnConfigError', () => {
  it('prints the message to stderr and exits 1', () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => { written.push(String(chunk)); return true; });
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => { throw new Error(`exit ${code}`); }) as never);
    try {
      expect(() => exitOnConfigError(new ConfigError(['AUTH_SITE_URL: required']))).toThrow('exit 1');
      expect(written).toEqual(['Invalid configuration:\n  AUTH_SITE_URL: required\n']);
    } finally {
      write.mockRestore();
      exit.mockRestore();
    }
  });

  it('rethrows anything else', () => {
    const boom = new Error('boom');
    expect(() => exitOnConfigError(boom)).toThrow(boom);
  });
});

describe('number wording', () => {
  const problems = (env: Record<string, string>) =>
    configError(() => loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV, ...env } })).problems;

  it('separates not-a-number, not-whole and out-of-range', () => {
    expect(problems({ AUTH_BCRYPT_COST: '1.5', AUTH_JWT_EXP: '0', AUTH_MAILER_OTP_EXP: '1e3' })).toEqual([
      'AUTH_JWT_EXP: expected a number of at least 1, got "0"',
      'AUTH_BCRYPT_COST: expected a whole number, got "1.5"',
      'AUTH_MAILER_OTP_EXP: expected a number, got "1e3"',
    ]);
  });
});
