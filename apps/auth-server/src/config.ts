// Reading the configuration for main.ts: development defaults outside production (embedded
// PGlite, an ES256 signing key generated once under .data/, the site URL on the server's own page), none in
// production so every missing setting is named.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadAuthConfig, type AuthConfig } from '@keyzone/config';
import { defaultDatabaseUrl } from '@keyzone/db';
import type { CreateLoggerOptions } from '@keyzone/logging';
import { generateSigningJwk } from './cli/keys';

export const APP_NAME = 'auth-server';

/**
 * .data/jwt-keys.json: an RS256 key pair generated on first use (mode 0600), the default of `keys generate`.
 * Development signs with it, so the JWKS endpoint publishes its public half and other apps verify the
 * quick-start server's tokens by `jwksUrl` exactly as they will in production.
 */
export function developmentJwtKeys(cwd: string): string {
  const dir = path.join(cwd, '.data');
  const file = path.join(dir, 'jwt-keys.json');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const keys = JSON.stringify([generateSigningJwk('RS256', 'dev')]);
  writeFileSync(file, `${keys}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return keys;
}

export function readConfig(env: Record<string, string | undefined>, cwd: string): AuthConfig {
  if (env.NODE_ENV === 'production') return loadAuthConfig({ env, cwd, production: true });
  const defaults: Record<string, string> = {
    DATABASE_URL: defaultDatabaseUrl(APP_NAME),
    JWT_KEYS: developmentJwtKeys(cwd),
    SITE_URL: 'http://localhost:8081/',
    API_EXTERNAL_URL: 'http://localhost:8081',
  };
  // A first pass learns the port (the external URL follows it unless set), so the site URL can default to the
  // server's own page there, and whether a JWT_SECRET is set (then it signs, not the generated key).
  const first = loadAuthConfig({ env, cwd, defaults });
  const portUrl = `http://localhost:${first.api.port}`;
  const externalUrl = first.api.externalUrl === defaults.API_EXTERNAL_URL ? portUrl : first.api.externalUrl;
  const second: Record<string, string> = { ...defaults, API_EXTERNAL_URL: portUrl, SITE_URL: `${externalUrl.replace(/\/+$/, '')}/` };
  if (first.jwt.secret !== undefined) delete second.JWT_KEYS;
  return loadAuthConfig({ env, cwd, defaults: second });
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
