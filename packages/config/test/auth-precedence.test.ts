// Where each value comes from: .env vs environment, AUTH_ vs GOTRUE_, prefixed vs unprefixed, synonyms, defaults.
import { loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>, files: Record<string, string> = {}, defaults?: Record<string, string>) =>
  loadAuthConfig({ env, cwd: tempDir(files), defaults });

describe('.env and the environment', () => {
  it('reads .env from cwd; a missing .env is fine', () => {
    expect(load({ ...MINIMAL_ENV }).jwt.exp).toBe(3600);
    const config = load({ ...MINIMAL_ENV }, { '.env': 'AUTH_JWT_EXP=120\n# comment\nAUTH_JWT_AUD="quoted aud"\n' });
    expect(config.jwt.exp).toBe(120);
    expect(config.jwt.aud).toBe('quoted aud');
  });

  it('the environment wins over .env', () => {
    const config = load({ ...MINIMAL_ENV, AUTH_JWT_EXP: '60' }, { '.env': 'AUTH_JWT_EXP=120\nAUTH_JWT_AUD=from-file\n' });
    expect(config.jwt.exp).toBe(60);
    expect(config.jwt.aud).toBe('from-file');
  });

  it('required values may come from .env alone', () => {
    const dotenv = Object.entries(MINIMAL_ENV).map(([k, v]) => `${k}=${v}`).join('\n');
    expect(load({}, { '.env': dotenv }).siteUrl).toBe('http://localhost:3000');
  });

  it('an empty variable counts as unset, so defaults apply', () => {
    expect(load({ ...MINIMAL_ENV, AUTH_JWT_EXP: '', AUTH_LOG_LEVEL: '  ' }).jwt.exp).toBe(3600);
  });

  it('an empty environment variable blanks the same variable in .env', () => {
    expect(load({ ...MINIMAL_ENV, AUTH_SMTP_HOST: '' }, { '.env': 'AUTH_SMTP_HOST=smtp.example.com' }).smtp.host).toBeUndefined();
  });

  it('defaults to process.env when no env is given', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, MINIMAL_ENV, { AUTH_JWT_EXP: '77' });
      expect(loadAuthConfig({ cwd: tempDir() }).jwt.exp).toBe(77);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

describe('prefixes', () => {
  it('accepts GOTRUE_ as an alias', () => {
    const { AUTH_SITE_URL: _, ...rest } = MINIMAL_ENV;
    const config = load({ ...rest, GOTRUE_SITE_URL: 'https://gotrue.example.com', GOTRUE_JWT_EXP: '99' });
    expect(config.siteUrl).toBe('https://gotrue.example.com');
    expect(config.jwt.exp).toBe(99);
  });

  it('AUTH_ wins when both are set, in either source', () => {
    expect(load({ ...MINIMAL_ENV, AUTH_JWT_EXP: '1', GOTRUE_JWT_EXP: '2' }).jwt.exp).toBe(1);
    expect(load({ ...MINIMAL_ENV, GOTRUE_JWT_EXP: '2' }, { '.env': 'AUTH_JWT_EXP=1' }).jwt.exp).toBe(1);
  });

  it('ignores unprefixed names other than PORT, DATABASE_URL and LOG_LEVEL', () => {
    expect(load({ ...MINIMAL_ENV, JWT_EXP: '5', DISABLE_SIGNUP: 'true' }).jwt.exp).toBe(3600);
    expect(load({ ...MINIMAL_ENV, DISABLE_SIGNUP: 'true' }).disableSignup).toBe(false);
  });

  it('PORT, DATABASE_URL and LOG_LEVEL work unprefixed; prefixed forms win', () => {
    const unprefixed = load({ ...MINIMAL_ENV, PORT: '9000', LOG_LEVEL: 'debug' });
    expect(unprefixed.api.port).toBe(9000);
    expect(unprefixed.log.level).toBe('debug');
    expect(unprefixed.db.url).toBe(MINIMAL_ENV.DATABASE_URL);
    const prefixed = load({
      ...MINIMAL_ENV, PORT: '9000', AUTH_PORT: '9001', LOG_LEVEL: 'debug', GOTRUE_LOG_LEVEL: 'warn',
      AUTH_DATABASE_URL: 'pglite://memory',
    });
    expect(prefixed.api.port).toBe(9001);
    expect(prefixed.log.level).toBe('warn');
    expect(prefixed.db.url).toBe('pglite://memory');
  });

  it('API_PORT and DB_DATABASE_URL are synonyms of PORT and DATABASE_URL', () => {
    const { DATABASE_URL: _, ...rest } = MINIMAL_ENV;
    const config = load({ ...rest, AUTH_API_PORT: '7000', GOTRUE_DB_DATABASE_URL: 'postgresql://db/auth' });
    expect(config.api.port).toBe(7000);
    expect(config.db.url).toBe('postgresql://db/auth');
    expect(load({ ...MINIMAL_ENV, AUTH_PORT: '7001', AUTH_API_PORT: '7000' }).api.port).toBe(7001);
  });
});

describe('defaults option (main.ts development defaults)', () => {
  it('satisfies required variables with unprefixed names', () => {
    const config = load({}, {}, {
      SITE_URL: 'http://localhost:3000', API_EXTERNAL_URL: 'http://localhost:8081',
      DATABASE_URL: 'pglite://.data/auth-server', JWT_SECRET: 'dev-secret',
    });
    expect(config.db.url).toBe('pglite://.data/auth-server');
    expect(config.jwt.secret).toBe('dev-secret');
  });

  it('loses to .env and to the environment, prefixed or not', () => {
    const defaults = { DATABASE_URL: 'pglite://.data/auth-server', JWT_EXP: '10' };
    expect(load({ ...MINIMAL_ENV }, {}, defaults).db.url).toBe(MINIMAL_ENV.DATABASE_URL);
    expect(load({ ...MINIMAL_ENV }, { '.env': 'GOTRUE_JWT_EXP=20' }, defaults).jwt.exp).toBe(20);
    expect(load({ ...MINIMAL_ENV }, {}, defaults).jwt.exp).toBe(10);
  });

  it('accepts prefixed keys too', () => {
    expect(load({ ...MINIMAL_ENV }, {}, { AUTH_JWT_EXP: '11' }).jwt.exp).toBe(11);
  });
});
