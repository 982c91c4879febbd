// What main.ts reads: development defaults (embedded PGlite, an RS256 signing key kept in .data/jwt-keys.json
// with mode 0600, the external URL following the port, the site URL on the server's own page) and none in
// production.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@keyzone/config';
import { createLogger } from '@keyzone/logging';
import { loggerOptions, readConfig, readSigningConfig } from '../src/config';

const fresh = () => mkdtempSync(path.join(tmpdir(), 'kz-auth-main-'));
/** Random-looking: production refuses short or patterned HMAC secrets (issue 39). */
const PRODUCTION_SECRET = 'Vq3n8LwZ0pXk5RtB7yHc2MdJ4sGf6AeU';

it('development: runs with no settings at all', () => {
  const cwd = fresh();
  const config = readConfig({}, cwd);
  expect(config.db.url).toBe('pglite://.data/auth-server');
  expect(config.siteUrl).toBe('http://localhost:8081/');
  expect(config.api.port).toBe(8081);
  expect(config.api.externalUrl).toBe('http://localhost:8081');
  const file = path.join(cwd, '.data', 'jwt-keys.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(config.jwt.secret).toBeUndefined();
  expect(config.jwt.keys).toEqual(JSON.parse(readFileSync(file, 'utf8')));
  expect(config.jwt.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', key_ops: ['sign', 'verify'] })]);
  // The key is generated once and kept.
  expect(readConfig({}, cwd).jwt.keys).toEqual(config.jwt.keys);
});

it('development: the external URL follows PORT unless set; explicit settings win', () => {
  const cwd = fresh();
  const onPort = readConfig({ PORT: '9100' }, cwd);
  expect(onPort.api.externalUrl).toBe('http://localhost:9100');
  expect(onPort.siteUrl).toBe('http://localhost:9100/');
  const config = readConfig({ PORT: '9100', AUTH_API_EXTERNAL_URL: 'https://auth.example.com', AUTH_JWT_SECRET: 'x'.repeat(40) }, cwd);
  expect(config.api.externalUrl).toBe('https://auth.example.com');
  expect(config.siteUrl).toBe('https://auth.example.com/');
  // A secret set on purpose signs (HS256); the generated key is left out.
  expect(config.jwt.secret).toBe('x'.repeat(40));
  expect(config.jwt.keys).toBeUndefined();
  expect(readConfig({ AUTH_SITE_URL: 'http://localhost:5173' }, cwd).siteUrl).toBe('http://localhost:5173');
});

it('production: no defaults, every missing setting is named', () => {
  let error: unknown;
  try {
    readConfig({ NODE_ENV: 'production' }, fresh());
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  for (const name of ['AUTH_SITE_URL', 'AUTH_API_EXTERNAL_URL', 'AUTH_DATABASE_URL', 'AUTH_JWT_SECRET']) expect(message).toContain(name);
  // Mail flows cannot work without SMTP unless sign-ups confirm themselves (issue 11).
  expect(message).toContain('AUTH_SMTP_HOST: required in production unless AUTH_MAILER_AUTOCONFIRM=true');
});

it('production: SMTP or MAILER_AUTOCONFIRM, and API_EXTERNAL_URL read unprefixed as GoTrue deployments set it', () => {
  const base = {
    NODE_ENV: 'production', AUTH_SITE_URL: 'https://app.example.com', API_EXTERNAL_URL: 'https://auth.example.com',
    DATABASE_URL: 'postgres://db/auth', AUTH_JWT_SECRET: PRODUCTION_SECRET,
  };
  expect(() => readConfig(base, fresh())).toThrow(/AUTH_SMTP_HOST: required in production/);
  expect(readConfig({ ...base, AUTH_MAILER_AUTOCONFIRM: 'true' }, fresh()).api.externalUrl).toBe('https://auth.example.com');
  const smtp = { AUTH_SMTP_HOST: 'smtp.example.com', AUTH_SMTP_PORT: '587', AUTH_SMTP_ADMIN_EMAIL: 'auth@example.com' };
  expect(readConfig({ ...base, ...smtp }, fresh()).smtp.host).toBe('smtp.example.com');
});

describe('loggerOptions (issue 2: human-readable output in development)', () => {
  const config = (file?: string) => ({ log: { level: 'info', file } }) as Parameters<typeof loggerOptions>[1];
  it('pretty in development (NODE_ENV unset or development) on the console', () => {
    expect(loggerOptions({}, config())).toMatchObject({ name: 'auth-server', level: 'info', pretty: true });
    expect(loggerOptions({ NODE_ENV: 'development' }, config()).pretty).toBe(true);
  });
  it('JSON in production, in tests, and whenever LOG_FILE is set', () => {
    expect(loggerOptions({ NODE_ENV: 'production' }, config()).pretty).toBe(false);
    expect(loggerOptions({ NODE_ENV: 'test' }, config()).pretty).toBe(false);
    expect(loggerOptions({ NODE_ENV: 'development' }, config('/tmp/auth.log'))).toMatchObject({ pretty: false, file: '/tmp/auth.log' });
  });
  it('the chosen options give readable lines in development and JSON in production', async () => {
    const lines = async (env: Record<string, string>) => {
      const out: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer, _encoding, done) {
          out.push(chunk.toString());
          done();
        },
      });
      createLogger({ ...loggerOptions(env, config()), destination }).info({ user: 'u1' }, 'hello');
      // pino-pretty writes through a transform stream: wait until the line arrives.
      for (let i = 0; i < 1000 && out.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
      return out.join('');
    };
    const json = await lines({ NODE_ENV: 'production' });
    expect(JSON.parse(json)).toMatchObject({ level: 'info', name: 'auth-server', msg: 'hello' });
    const pretty = await lines({ NODE_ENV: 'development' });
    expect(pretty).toContain('hello');
    expect(() => JSON.parse(pretty)).toThrow();
  });
});

it('development: a configured JWT_SECRET or JWT_KEYS writes no key to .data/ (issue 26)', () => {
  const withSecret = fresh();
  expect(readConfig({ AUTH_JWT_SECRET: 'y'.repeat(40) }, withSecret).jwt.secret).toBe('y'.repeat(40));
  expect(existsSync(path.join(withSecret, '.data', 'jwt-keys.json'))).toBe(false);
  const withKeys = fresh();
  const keys = readConfig({}, fresh()).jwt.keys;
  const config = readConfig({ AUTH_JWT_KEYS: JSON.stringify(keys) }, withKeys);
  expect(config.jwt.keys).toEqual(keys);
  expect(config.jwt.secret).toBeUndefined();
  expect(existsSync(path.join(withKeys, '.data', 'jwt-keys.json'))).toBe(false);
});

it('the workspace root .env is read under the app\'s own .env, and the environment wins over both (issue 25)', () => {
  const root = fresh();
  writeFileSync(path.join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
  writeFileSync(path.join(root, '.env'), 'AUTH_SITE_URL=https://root.example.com/\nAUTH_JWT_SECRET=' + 'r'.repeat(40) + '\nAUTH_JWT_AUD=root\n');
  const app = path.join(root, 'apps', 'auth-server');
  mkdirSync(app, { recursive: true });
  writeFileSync(path.join(app, '.env'), 'AUTH_JWT_AUD=app\n');
  const config = readConfig({ AUTH_SITE_URL: 'https://env.example.com/' }, app);
  expect(config.siteUrl).toBe('https://env.example.com/');
  expect(config.jwt.secret).toBe('r'.repeat(40));
  expect(config.jwt.aud).toBe('app');
});

it('production: the token command needs only the signing key (issue 25)', () => {
  const config = readSigningConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: PRODUCTION_SECRET }, fresh());
  expect(config.jwt.secret).toBe(PRODUCTION_SECRET);
  // It signs, so a weak secret is refused as the server would refuse it (issue 39).
  expect(() => readSigningConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'z'.repeat(40) }, fresh())).toThrow(/AUTH_JWT_SECRET: too predictable/);
  let error: unknown;
  try {
    readSigningConfig({ NODE_ENV: 'production' }, fresh());
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).problems).toEqual([expect.stringContaining('AUTH_JWT_SECRET')]);
});
