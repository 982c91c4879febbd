// loadDnsConfig: the DNS service's YAML environments plus PORT / DATABASE_URL / SESSION_SECRET from the
// environment, mapped to the camelCase DnsConfig. Production refuses the shipped session secret and a
// missing database URL (no embedded default there).
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';
import { deepFreeze, parseInteger, quote } from '../coerce';
import { parseNodeEnv, parseYamlEnvironments } from '../yaml/environments';
import { DEFAULT_DEV_SESSION_SECRET, DNS_ENVIRONMENTS, type DnsConfig } from './schema';
import { DB_URL, dnsYamlSchema, parseBytes, parseHostPort } from './yaml-schema';
import { parseTrustedProxies } from '../client-address';
import { parseAttributes } from '../auth/schema-observability';
import { weakSecretReason } from '../secret-strength';

export interface LoadDnsConfigOptions {
  /**
   * The config folder, or a folder containing `config/`; default `config` under cwd. The files of the folder named
   * by DNS_CONFIG_DIR replace the ones of the same name (a folder holding only publish.yml keeps the rest).
   */
  dir?: string;
  /** Default env.NODE_ENV, else 'development'. */
  nodeEnv?: string;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
}

function resolveDir(options: LoadDnsConfigOptions): string {
  const base = path.resolve(options.dir ?? process.cwd());
  const nested = path.join(base, 'config');
  if (options.dir === undefined || fs.statSync(nested, { throwIfNoEntry: false })?.isDirectory()) return nested;
  return base;
}

/** The shipped folder, then DNS_CONFIG_DIR over it (alone when there is no shipped folder to read). */
function configDirs(options: LoadDnsConfigOptions, env: Record<string, string | undefined>): { dir: string; overlayDirs: string[] } {
  const shipped = resolveDir(options);
  const fromEnv = env.DNS_CONFIG_DIR?.trim();
  if (!fromEnv) return { dir: shipped, overlayDirs: [] };
  const overlay = path.resolve(fromEnv);
  if (overlay === shipped || !fs.statSync(shipped, { throwIfNoEntry: false })?.isDirectory()) return { dir: overlay, overlayDirs: [] };
  return { dir: shipped, overlayDirs: [overlay] };
}

function setting(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function loadDnsConfig(options: LoadDnsConfigOptions = {}): DnsConfig {
  const env = options.env ?? process.env;
  const nodeEnv = options.nodeEnv ?? env.NODE_ENV;
  const problems: string[] = [];
  const envName = parseNodeEnv(nodeEnv);
  if (!envName) {
    throw new ConfigError([`NODE_ENV: expected one of ${DNS_ENVIRONMENTS.join(', ')}, got ${quote(nodeEnv ?? '')}`]);
  }
  const { value: yml, problems: yamlProblems } = parseYamlEnvironments({
    ...configDirs(options, env), nodeEnv: envName, schema: dnsYamlSchema, env,
  });
  problems.push(...yamlProblems);

  const portText = setting(env, 'PORT');
  const port = portText === undefined ? undefined : parseInteger(portText);
  if (portText !== undefined && (port === undefined || port < 0 || port > 65535)) {
    problems.push(`PORT: expected a number from 0 to 65535, got ${quote(portText)}`);
  }
  const databaseUrl = setting(env, 'DATABASE_URL')?.trim();
  if (databaseUrl !== undefined && !DB_URL.test(databaseUrl)) {
    problems.push('DATABASE_URL: expected a postgres://, postgresql:// or pglite:// URL');
  }
  const sessionSecret = setting(env, 'SESSION_SECRET');
  const production = envName === 'production';

  if (yml) {
    const secret = sessionSecret ?? yml.session.secret;
    if (production) {
      const name = sessionSecret !== undefined ? 'SESSION_SECRET' : 'session.yml: production.secret';
      if (secret === undefined || (sessionSecret === undefined && secret === DEFAULT_DEV_SESSION_SECRET)) {
        // Unset, or only the shipped session.yml's development default: the operator has not chosen one.
        problems.push('SESSION_SECRET: required in production (set it, or secret in the production section of session.yml)');
      } else if (secret === DEFAULT_DEV_SESSION_SECRET) {
        problems.push(`${name}: the shipped development secret is refused in production; set your own (\`openssl rand -base64 32\`)`);
      } else {
        const weak = weakSecretReason(secret);
        if (weak) problems.push(`${name}: ${weak}`);
      }
      const jwtSecretWeakness = yml.auth.jwt_secret === undefined ? undefined : weakSecretReason(yml.auth.jwt_secret);
      if (jwtSecretWeakness) problems.push(`auth.yml: jwt_secret: ${jwtSecretWeakness}`);
      if ((databaseUrl ?? yml.database.url) === undefined) {
        problems.push('DATABASE_URL: required in production (set it, or url in the production section of database.yml)');
      }
    }
  }
  const envBool = (name: string): boolean | undefined => {
    const raw = setting(env, name)?.trim().toLowerCase();
    if (raw === undefined) return undefined;
    if (['true', '1'].includes(raw)) return true;
    if (['false', '0'].includes(raw)) return false;
    problems.push(`${name}: expected true or false, got ${quote(raw)}`);
    return undefined;
  };
  const trustedText = setting(env, 'TRUSTED_PROXIES');
  const trustedEnv = trustedText === undefined ? undefined : parseTrustedProxies(trustedText);
  if (trustedText !== undefined && trustedEnv === undefined) {
    problems.push(`TRUSTED_PROXIES: expected comma-separated IP addresses or CIDR blocks, got ${quote(trustedText)}`);
  }
  const preparedEnv = envBool('DB_PREPARED_STATEMENTS');
  const tracingEnv = envBool('TRACING_ENABLED');
  const metricsEnv = envBool('METRICS_ENABLED');
  const debugEnv = envBool('DEBUG');
  const exporterEnv = setting(env, 'METRICS_EXPORTER')?.trim().toLowerCase();
  if (exporterEnv !== undefined && exporterEnv !== 'prometheus' && exporterEnv !== 'opentelemetry') {
    problems.push(`METRICS_EXPORTER: expected prometheus or opentelemetry, got ${quote(exporterEnv)}`);
  }
  const promPortText = setting(env, 'OTEL_EXPORTER_PROMETHEUS_PORT');
  const promPort = promPortText === undefined ? undefined : parseInteger(promPortText);
  if (promPortText !== undefined && (promPort === undefined || promPort < 0 || promPort > 65535)) {
    problems.push(`OTEL_EXPORTER_PROMETHEUS_PORT: expected a number from 0 to 65535, got ${quote(promPortText)}`);
  }
  const resourceText = setting(env, 'OTEL_RESOURCE_ATTRIBUTES');
  const resourceEnv = resourceText === undefined ? {} : parseAttributes(resourceText);
  if (resourceEnv === undefined) problems.push('OTEL_RESOURCE_ATTRIBUTES: expected comma-separated key=value pairs');
  if (yml?.auth.enabled && yml.auth.url === undefined) {
    problems.push('auth.yml: url is required when enabled (the auth server that issued the tokens)');
  }
  const oidc = yml?.auth.oidc;
  if (oidc?.enabled) {
    for (const key of ['issuer', 'client_id', 'redirect_uri'] as const) {
      if (oidc[key] === undefined) problems.push(`auth.yml: oidc.${key} is required when oidc.enabled`);
    }
    if (oidc.redirect_uri !== undefined && !new URL(oidc.redirect_uri).pathname.endsWith('/session/oidc/callback')) {
      problems.push('auth.yml: oidc.redirect_uri: expected this API\'s external URL followed by /session/oidc/callback');
    }
    if (production) {
      for (const key of ['issuer', 'redirect_uri'] as const) {
        if (oidc[key]?.startsWith('http:')) problems.push(`auth.yml: oidc.${key}: expected an https:// URL in production`);
      }
    }
  }
  if (problems.length > 0 || !yml) throw new ConfigError(problems);
  const authUrl = yml.auth.url?.replace(/\/+$/, '');

  const config: DnsConfig = {
    http: {
      host: yml.http.host,
      port: port ?? yml.http.port,
      keepAliveTimeoutSeconds: yml.http.keep_alive_timeout_seconds,
      defaultGroup: yml.http.default_group,
      bodyLimit: parseBytes(yml.http.body_limit) ?? 102400,
      zoneFileLimit: parseBytes(yml.http.zone_file_limit) ?? 10 * 1024 * 1024,
      trustedProxies: trustedEnv ?? parseTrustedProxies([yml.http.trusted_proxies].flat().join(',')) ?? [],
    },
    session: {
      cookieName: yml.session.cookie_name,
      ttlSeconds: yml.session.ttl_seconds,
      secret: sessionSecret ?? yml.session.secret ?? DEFAULT_DEV_SESSION_SECRET,
      secure: yml.session.secure ?? production,
    },
    database: { url: databaseUrl ?? yml.database.url, preparedStatements: preparedEnv ?? yml.database.prepared_statements },
    log: { level: yml.log.level, file: yml.log.file },
    quotas: { zonesPerGroup: yml.quotas.zones_per_group, recordsPerZone: yml.quotas.records_per_zone },
    security: {
      bcryptCost: yml.security.bcrypt_cost,
      loginAttemptsPerClient: yml.security.login_attempts_per_client,
      loginAttemptsPerAccount: yml.security.login_attempts_per_account,
      loginsPerClient: yml.security.logins_per_client,
    },
    publish: {
      enabled: yml.publish.enabled,
      pollSeconds: yml.publish.poll_seconds,
      timeoutSeconds: yml.publish.timeout_seconds,
      maxRetrySeconds: yml.publish.max_retry_seconds,
      powerdns: Object.fromEntries(Object.entries(yml.publish.powerdns).map(([name, target]) => [
        `${name.toLowerCase().replace(/\.$/, '')}.`,
        { url: target.url.replace(/\/+$/, ''), apiKey: target.api_key, serverId: target.server_id },
      ])),
      zoneFiles: yml.publish.zone_files && {
        directory: yml.publish.zone_files.directory,
        includeFile: yml.publish.zone_files.include_file,
        reloadCommand: yml.publish.zone_files.reload_command,
        keyDirectory: yml.publish.zone_files.key_directory,
        checkCommand: yml.publish.zone_files.check_command,
      },
    },
    telemetry: {
      tracingEnabled: tracingEnv ?? yml.telemetry.tracing_enabled,
      metricsEnabled: metricsEnv ?? yml.telemetry.metrics_enabled,
      metricsExporter: (exporterEnv as 'prometheus' | 'opentelemetry' | undefined) ?? yml.telemetry.metrics_exporter,
      prometheusHost: setting(env, 'OTEL_EXPORTER_PROMETHEUS_HOST')?.trim() ?? yml.telemetry.prometheus_host,
      prometheusPort: promPort ?? yml.telemetry.prometheus_port,
      resourceAttributes: { ...yml.telemetry.resource_attributes, ...resourceEnv },
      debug: debugEnv ?? yml.telemetry.debug,
    },
    auth: {
      enabled: yml.auth.enabled,
      url: authUrl,
      jwksUrl: yml.auth.jwks_url ?? (yml.auth.jwt_secret || !authUrl ? undefined : `${authUrl}/.well-known/jwks.json`),
      jwtSecret: yml.auth.jwt_secret,
      issuer: yml.auth.issuer,
      audience: yml.auth.audience,
      sessionCheckSeconds: yml.auth.session_check_seconds,
      autoLinkByVerifiedEmail: yml.auth.auto_link_by_verified_email,
      requireAal2WithFactors: yml.auth.require_aal2_with_factors,
      oidc: yml.auth.oidc.enabled ? {
        issuer: yml.auth.oidc.issuer ?? '',
        clientId: yml.auth.oidc.client_id ?? '',
        clientSecret: yml.auth.oidc.client_secret,
        scopes: yml.auth.oidc.scopes,
        redirectUri: yml.auth.oidc.redirect_uri ?? '',
        label: yml.auth.oidc.label,
        linkByVerifiedEmail: yml.auth.oidc.link_by_verified_email,
        discoveryRefreshSeconds: yml.auth.oidc.discovery_refresh_seconds,
      } : undefined,
    },
    dns: {
      enabled: yml.dns.enabled,
      address: yml.dns.address,
      port: yml.dns.port,
      udp: yml.dns.udp,
      tcp: yml.dns.tcp,
      tsigSecretKey: yml.dns.tsig_secret_key ?? sessionSecret ?? yml.session.secret ?? DEFAULT_DEV_SESSION_SECRET,
      fudgeSeconds: yml.dns.fudge_seconds,
      maxTransfers: yml.dns.max_transfers,
      udpAnswersPerClientPerSecond: yml.dns.udp_answers_per_client_per_second,
      transferPeers: Object.fromEntries(Object.entries(yml.dns.transfer_peers).map(([zone, peers]) => [
        `${zone.toLowerCase().replace(/\.$/, '')}.`, peers,
      ])),
      notify: Object.fromEntries(Object.entries(yml.dns.notify).map(([zone, targets]) => [
        `${zone.toLowerCase().replace(/\.$/, '')}.`,
        targets.map((t) => (typeof t === 'string' ? parseHostPort(t)! : { ...parseHostPort(t.address)!, ...(t.key ? { key: t.key.trim().toLowerCase().replace(/\.$/, '') } : {}) })),
      ])),
      notifyPollSeconds: yml.dns.notify_poll_seconds,
      notifyRetrySeconds: yml.dns.notify_retry_seconds,
      notifyRetries: yml.dns.notify_retries,
      secondaryRefresh: yml.dns.secondary_refresh,
      secondaryMinRefreshSeconds: envName === 'production' ? Math.max(30, yml.dns.secondary_min_refresh_seconds) : yml.dns.secondary_min_refresh_seconds,
      secondaryMaxRefreshSeconds: Math.max(yml.dns.secondary_max_refresh_seconds, yml.dns.secondary_min_refresh_seconds),
      secondaryPollSeconds: yml.dns.secondary_poll_seconds,
      transferSourcesAllowed: yml.dns.transfer_sources_allowed,
    },
    env: envName,
  };
  return deepFreeze(config);
}
