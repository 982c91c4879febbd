// Reading the configuration for main.ts: development defaults outside production (embedded
// PGlite, an ES256 signing key generated once under .data/, the site URL on the server's own page), none in
// production so every missing setting is named.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { envDirsFor, loadAuthConfig, type AuthConfig } from '@keyzone/config';
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

/** A stand-in secret for the first pass only: it tells "no key configured" apart without writing one. */
const NO_KEY_YET = 'keyzone-first-pass-placeholder-secret-0123456789';

export function readConfig(env: Record<string, string | undefined>, cwd: string): AuthConfig {
  const envDirs = envDirsFor(cwd);
  if (env.NODE_ENV === 'production') return loadAuthConfig({ env, cwd, envDirs, production: true });
  const defaults: Record<string, string> = {
    DATABASE_URL: defaultDatabaseUrl(APP_NAME),
    JWT_SECRET: NO_KEY_YET,
    SITE_URL: 'http://localhost:8081/',
    API_EXTERNAL_URL: 'http://localhost:8081',
  };
  // A first pass learns the port (the external URL follows it unless set), so the site URL can default to the
  // server's own page there, and whether JWT_SECRET or JWT_KEYS is set: only without either is the development
  // key generated (and written to .data/).
  const first = loadAuthConfig({ env, cwd, envDirs, defaults });
  const portUrl = `http://localhost:${first.api.port}`;
  const externalUrl = first.api.externalUrl === defaults.API_EXTERNAL_URL ? portUrl : first.api.externalUrl;
  const second: Record<string, string> = { ...defaults, API_EXTERNAL_URL: portUrl, SITE_URL: `${externalUrl.replace(/\/+$/, '')}/` };
  delete second.JWT_SECRET;
  if (first.jwt.secret === NO_KEY_YET && first.jwt.keys === undefined) second.JWT_KEYS = developmentJwtKeys(cwd);
  return loadAuthConfig({ env, cwd, envDirs, defaults: second });
}

/**
 * The configuration the `token` command needs: only the signing key counts. In production the rest (database,
 * SMTP, URLs) is not required just to sign a JWT, so those get throwaway values here; outside production it is
 * the server's own configuration, so the command signs with the same development key.
 */
export function readSigningConfig(env: Record<string, string | undefined>, cwd: string): AuthConfig {
  if (env.NODE_ENV !== 'production') return readConfig(env, cwd);
  // Production's checks still apply (a short JWT_SECRET signs nothing); MAILER_AUTOCONFIRM only quiets the SMTP rule.
  const unused = { DATABASE_URL: 'pglite://memory', SITE_URL: 'http://localhost/', API_EXTERNAL_URL: 'http://localhost/', MAILER_AUTOCONFIRM: 'true' };
  return loadAuthConfig({ env, cwd, envDirs: envDirsFor(cwd), defaults: unused, production: true });
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
