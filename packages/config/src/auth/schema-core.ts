// Top level, API, database and logging settings (spec Part 1, "Top level and security" and
// "API, database, logging").
import { parseTrustedProxies } from '../client-address';
import { LOG_LEVELS } from './schema';
import type { ApiConfig, DbConfig, LogConfig } from './schema';
import type { EnvReader } from './env-reader';

export function readTopLevel(r: EnvReader): { siteUrl: string; uriAllowList: string[]; disableSignup: boolean; operatorToken: string | undefined } {
  return {
    siteUrl: r.url('SITE_URL', { required: true }),
    uriAllowList: r.list('URI_ALLOW_LIST') ?? [],
    disableSignup: r.bool('DISABLE_SIGNUP') ?? false,
    operatorToken: r.string('OPERATOR_TOKEN'),
  };
}

export function readApi(r: EnvReader): ApiConfig {
  return {
    host: r.string('API_HOST')?.trim(),
    port: r.int('PORT', { min: 0, max: 65535 }) ?? 8081,
    externalUrl: r.url('API_EXTERNAL_URL', { required: true }),
    requestIdHeader: r.string('REQUEST_ID_HEADER')?.trim(),
    endpoint: r.url('API_ENDPOINT'),
    trustedProxies: r.read('TRUSTED_PROXIES', 'comma-separated IP addresses or CIDR blocks (e.g. 10.0.0.0/8,192.0.2.7)',
      parseTrustedProxies) ?? [],
  };
}

export function readDb(r: EnvReader): DbConfig {
  return {
    driver: r.oneOf('DB_DRIVER', ['postgres'] as const) ?? 'postgres',
    url: r.url('DATABASE_URL', { required: true, protocols: ['postgres', 'postgresql', 'pglite'] }),
    maxPoolSize: r.int('DB_MAX_POOL_SIZE', { min: 0 }) ?? 0,
    preparedStatements: r.bool('DB_PREPARED_STATEMENTS') ?? true,
    namespace: r.read('DB_NAMESPACE', 'a name of letters, digits and underscores',
      (raw) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.trim()) ? raw.trim() : undefined)),
    cleanupInterval: r.duration('DB_CLEANUP_INTERVAL') ?? 600,
    cleanupBatchSize: r.int('DB_CLEANUP_BATCH_SIZE', { min: 1, max: 100_000 }) ?? 500,
    waitTimeout: r.duration('DB_WAIT_TIMEOUT') ?? 60,
  };
}

export function readLog(r: EnvReader): LogConfig {
  return {
    level: r.oneOf('LOG_LEVEL', LOG_LEVELS) ?? 'info',
    file: r.string('LOG_FILE')?.trim(),
  };
}
