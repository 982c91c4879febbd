// loadAuthConfig: .env files (the workspace root's, then cwd's) under the environment, AUTH_/GOTRUE_ prefixes, coercion, one error
// listing every problem, and a deeply frozen result.
import { ConfigError } from '../errors';
import { readEnvFiles } from '../env-files';
import { deepFreeze } from '../coerce';
import { ALIAS_PREFIX, EnvReader, PREFIX } from './env-reader';
import type { AuthConfig } from './schema';
import { readApi, readDb, readLog, readTopLevel } from './schema-core';
import { readJwt } from './schema-jwt';
import { readExternal } from './schema-external';
import { readPassword, readRateLimit, readSecurity } from './schema-security';
import { readMailer, readSmtp } from './schema-email';
import { readSms } from './schema-sms';
import { readHooks } from './schema-hooks';
import { readMfa } from './schema-mfa';
import { readSaml } from './schema-saml';
import { readWebAuthn } from './schema-webauthn';
import { checkOAuthServerSigningKey, readOAuthServer } from './schema-oauth-server';
import { readMetrics, readTracing } from './schema-observability';
import { readCustomOAuth, readOutbound } from './schema-custom-oauth';
import { readConsole } from './schema-console';

export interface LoadAuthConfigOptions {
  /** Variables to read; default process.env. */
  env?: Record<string, string | undefined>;
  /** Folder holding the optional .env file; default process.cwd(). */
  cwd?: string;
  /**
   * Folders whose .env files are read, each over the one before (the environment wins over all); default
   * [cwd]. main.ts passes the workspace root first, so the root .env serves both services and the app's own
   * file may override it.
   */
  envDirs?: string[];
  /** Fallbacks by UNPREFIXED name (e.g. DATABASE_URL, JWT_SECRET), used when neither env nor .env sets one. */
  defaults?: Record<string, string>;
  /**
   * Production: settings that only matter together are checked too (mail flows need SMTP unless
   * sign-ups are confirmed automatically), so the server refuses to start instead of failing each request.
   */
  production?: boolean;
}

/** Accept defaults keyed with a prefix too, by stripping it. */
function unprefixDefaults(defaults: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(defaults)) {
    const bare = key.startsWith(PREFIX) ? key.slice(PREFIX.length)
      : key.startsWith(ALIAS_PREFIX) ? key.slice(ALIAS_PREFIX.length) : key;
    out[bare] = value;
  }
  return out;
}

export function loadAuthConfig(options: LoadAuthConfigOptions = {}): AuthConfig {
  const env = options.env ?? process.env;
  const vars: Record<string, string | undefined> = readEnvFiles(options.envDirs ?? [options.cwd ?? process.cwd()]);
  for (const [key, value] of Object.entries(env)) if (value !== undefined) vars[key] = value;
  const r = new EnvReader(vars, unprefixDefaults(options.defaults ?? {}));

  const topLevel = readTopLevel(r);
  const api = readApi(r);
  const db = readDb(r);
  const log = readLog(r);
  const jwt = readJwt(r, options.production ?? false);
  const config: AuthConfig = {
    ...topLevel,
    api,
    db,
    log,
    jwt,
    external: readExternal(r),
    password: readPassword(r),
    security: readSecurity(r),
    rateLimit: readRateLimit(r),
    smtp: readSmtp(r),
    mailer: readMailer(r),
    sms: readSms(r),
    mfa: readMfa(r),
    tracing: readTracing(r),
    metrics: readMetrics(r),
    hooks: readHooks(r, options.production ?? false),
    saml: readSaml(r, api.externalUrl ?? ''),
    webauthn: readWebAuthn(r),
    oauthServer: readOAuthServer(r),
    outbound: readOutbound(r),
    customOAuth: readCustomOAuth(r, jwt.secret, options.production ?? false),
    console: readConsole(r),
  };
  if (options.production && !config.mailer.autoconfirm && !config.smtp.host && !config.hooks.sendEmail) {
    r.problem(
      `${r.display('SMTP_HOST')}: required in production unless ${r.display('MAILER_AUTOCONFIRM')}=true ` +
        '(sign-up confirmations, recoveries and magic links are sent by mail), or a send email hook (HOOK_SEND_EMAIL_*)',
    );
  }
  checkOAuthServerSigningKey(r, config);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return deepFreeze(config);
}
