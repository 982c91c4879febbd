// What main.ts reads: development defaults (embedded PGlite, a JWT secret kept in .data/jwt-secret
// with mode 0600, the external URL following the port) and none in production.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@keyzone/config';
import { readConfig } from '../src/config';

const fresh = () => mkdtempSync(path.join(tmpdir(), 'kz-auth-main-'));

it('development: runs with no settings at all', () => {
  const cwd = fresh();
  const config = readConfig({}, cwd);
  expect(config.db.url).toBe('pglite://.data/auth-server');
  expect(config.siteUrl).toBe('http://localhost:3000');
  expect(config.api.port).toBe(8081);
  expect(config.api.externalUrl).toBe('http://localhost:8081');
  const file = path.join(cwd, '.data', 'jwt-secret');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(config.jwt.secret).toBe(readFileSync(file, 'utf8').trim());
  // The secret is generated once and kept.
  expect(readConfig({}, cwd).jwt.secret).toBe(config.jwt.secret);
});

it('development: the external URL follows PORT unless set; explicit settings win', () => {
  const cwd = fresh();
  expect(readConfig({ PORT: '9100' }, cwd).api.externalUrl).toBe('http://localhost:9100');
  const config = readConfig({ PORT: '9100', AUTH_API_EXTERNAL_URL: 'https://auth.example.com', AUTH_JWT_SECRET: 'x'.repeat(40) }, cwd);
  expect(config.api.externalUrl).toBe('https://auth.example.com');
  expect(config.jwt.secret).toBe('x'.repeat(40));
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
});
