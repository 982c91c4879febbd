// Reading the configuration for main.ts: development defaults outside production (embedded
// PGlite, a JWT secret generated once under .data/), none in production so every missing
// setting is named.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadAuthConfig, type AuthConfig } from '@keyzone/config';
import { defaultDatabaseUrl } from '@keyzone/db';
import type { CreateLoggerOptions } from '@keyzone/logging';

export const APP_NAME = 'auth-server';

/** .data/jwt-secret, created (mode 0600) on first use. */
export function developmentJwtSecret(cwd: string): string {
  const dir = path.join(cwd, '.data');
  const file = path.join(dir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

export function readConfig(env: Record<string, string | undefined>, cwd: string): AuthConfig {
  if (env.NODE_ENV === 'production') return loadAuthConfig({ env, cwd, production: true });
  const defaults: Record<string, string> = {
    DATABASE_URL: defaultDatabaseUrl(APP_NAME),
    JWT_SECRET: developmentJwtSecret(cwd),
    SITE_URL: 'http://localhost:3000',
    API_EXTERNAL_URL: 'http://localhost:8081',
  };
  // The external URL default follows the configured port, so read the port first.
  const first = loadAuthConfig({ env, cwd, defaults });
  if (first.api.port === 8081) return first;
  return loadAuthConfig({ env, cwd, defaults: { ...defaults, API_EXTERNAL_URL: `http://localhost:${first.api.port}` } });
}

/**
 * Logger options for main.ts (issue 2): human-readable lines in development (NODE_ENV unset or
 * anything but production and test) when writing to the console; JSON in production, in tests and
 * whenever LOG_FILE is set, so files and log shippers always get one JSON object per line.
 */
export function loggerOptions(
  env: Record<string, string | undefined>,
  config: Pick<AuthConfig, 'log'>,
): CreateLoggerOptions & { pretty: boolean } {
  const development = env.NODE_ENV !== 'production' && env.NODE_ENV !== 'test';
  return { name: APP_NAME, level: config.log.level, file: config.log.file, pretty: development && !config.log.file };
}
