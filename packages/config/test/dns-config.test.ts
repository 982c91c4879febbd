// loadDnsConfig: the DNS service's YAML files, environment overrides, production refusals.
import path from 'node:path';
import { DEFAULT_DEV_SESSION_SECRET, loadDnsConfig } from '../src';
import { cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const PROD_SECRET = 'a-real-production-secret-of-48-characters-length';

/** A config folder like the app's: every setting in default, overrides per environment. */
function appConfig(extra: Record<string, string> = {}): string {
  return tempDir({
    'config/http.yml': `
default:
  host: 127.0.0.1
  port: 3000
  keep_alive_timeout_seconds: 5
  default_group: NicTool
  body_limit: 100kb
production:
  host: 0.0.0.0
  port: 8080
test:
  port: 0
`,
    'config/session.yml': `
default:
  cookie_name: sid-dnsapi
  ttl_seconds: 3600
  secret: ${DEFAULT_DEV_SESSION_SECRET}
  secure: false
production:
  secure: true
test:
  ttl_seconds: 60
`,
    'config/database.yml': `
default:
  url:
development:
  url: pglite://.data/dns-session-api
test:
  url: pglite://memory
`,
    'config/log.yml': 'default:\n  level: info\ntest:\n  level: warn\n',
    'config/security.yml': 'default:\n  bcrypt_cost: 10\ntest:\n  bcrypt_cost: 4\n',
    ...extra,
  });
}

const NO_PUBLISH = { enabled: false, pollSeconds: 2, timeoutSeconds: 10, maxRetrySeconds: 300, powerdns: {}, zoneFiles: undefined };

const NO_TELEMETRY = {
  tracingEnabled: false, metricsEnabled: false, metricsExporter: 'opentelemetry', prometheusHost: '0.0.0.0', prometheusPort: 9100,
  resourceAttributes: {}, debug: false,
};

const NO_AUTH = {
  enabled: false, url: undefined, jwksUrl: undefined, jwtSecret: undefined, issuer: undefined, audience: 'authenticated',
  sessionCheckSeconds: 60, autoLinkByVerifiedEmail: false, requireAal2WithFactors: true,
};

const NO_DNS = {
  enabled: false, address: '127.0.0.1', port: 5353, udp: true, tcp: true, tsigSecretKey: DEFAULT_DEV_SESSION_SECRET,
  fudgeSeconds: 300, maxTransfers: 10, udpAnswersPerClientPerSecond: 50, transferPeers: {},
  notify: {}, notifyPollSeconds: 2, notifyRetrySeconds: 15, notifyRetries: 5,
  secondaryRefresh: true, secondaryMinRefreshSeconds: 30, secondaryMaxRefreshSeconds: 86400, secondaryPollSeconds: 5, transferSourcesAllowed: [],
};

describe('loadDnsConfig', () => {
  it('development (the default NODE_ENV)', () => {
    const dir = appConfig();
    expect(loadDnsConfig({ dir, env: {} })).toEqual({
      http: { host: '127.0.0.1', port: 3000, keepAliveTimeoutSeconds: 5, defaultGroup: 'NicTool', bodyLimit: 102400, zoneFileLimit: 10485760, trustedProxies: [] },
      session: { cookieName: 'sid-dnsapi', ttlSeconds: 3600, secret: DEFAULT_DEV_SESSION_SECRET, secure: false },
      database: { url: 'pglite://.data/dns-session-api', preparedStatements: true },
      log: { level: 'info', file: undefined },
      security: { bcryptCost: 10, loginAttemptsPerClient: 30, loginAttemptsPerAccount: 10, loginsPerClient: 300 },
      quotas: { zonesPerGroup: 10000, recordsPerZone: 100000 },
      publish: NO_PUBLISH,
      telemetry: NO_TELEMETRY,
      auth: NO_AUTH,
      dns: NO_DNS,
      env: 'development',
    });
  });

  it('test, picked by env.NODE_ENV', () => {
    const c = loadDnsConfig({ dir: appConfig(), env: { NODE_ENV: 'test' } });
    expect(c.env).toBe('test');
    expect(c.http.port).toBe(0);
    expect(c.session.ttlSeconds).toBe(60);
    expect(c.database.url).toBe('pglite://memory');
    expect(c.log.level).toBe('warn');
    expect(c.security.bcryptCost).toBe(4);
  });

  it('production with the secret and database from the environment', () => {
    const c = loadDnsConfig({
      dir: appConfig(), nodeEnv: 'production',
      env: { SESSION_SECRET: PROD_SECRET, DATABASE_URL: 'postgres://dns@db/dns' },
    });
    expect(c.env).toBe('production');
    expect(c.http).toMatchObject({ host: '0.0.0.0', port: 8080 });
    expect(c.session).toEqual({ cookieName: 'sid-dnsapi', ttlSeconds: 3600, secret: PROD_SECRET, secure: true });
    expect(c.database.url).toBe('postgres://dns@db/dns');
  });

  it('options.nodeEnv wins over env.NODE_ENV', () => {
    expect(loadDnsConfig({ dir: appConfig(), nodeEnv: 'test', env: { NODE_ENV: 'development' } }).env).toBe('test');
  });

  it('PORT, DATABASE_URL and SESSION_SECRET override the YAML', () => {
    const c = loadDnsConfig({
      dir: appConfig(), nodeEnv: 'test',
      env: { PORT: '4567', DATABASE_URL: 'postgresql://127.0.0.1/x', SESSION_SECRET: 'from-env' },
    });
    expect(c.http.port).toBe(4567);
    expect(c.database.url).toBe('postgresql://127.0.0.1/x');
    expect(c.session.secret).toBe('from-env');
  });

  it('rejects bad overrides, naming the variable and never echoing the database URL', () => {
    const err = configError(() => loadDnsConfig({
      dir: appConfig(), nodeEnv: 'test', env: { PORT: 'eighty', DATABASE_URL: 'mysql://u:DB-PASS@h/db' },
    }));
    expect(err.problems).toEqual([
      'PORT: expected a number from 0 to 65535, got "eighty"',
      'DATABASE_URL: expected a postgres://, postgresql:// or pglite:// URL',
    ]);
    expect(err.message).not.toContain('DB-PASS');
  });

  it('publish.yml zone_files: the BIND key directory for signed zones (issue 32)', () => {
    const dir = appConfig({ 'config/publish.yml': 'default:\n  enabled: true\n  zone_files:\n    directory: /var/lib/keyzone/zones\n    reload_command: [rndc, reload]\n    key_directory: /var/lib/bind/keys\n' });
    expect(loadDnsConfig({ dir, env: {} }).publish.zoneFiles).toEqual({
      directory: '/var/lib/keyzone/zones', includeFile: 'keyzone-zones.conf', reloadCommand: ['rndc', 'reload'], keyDirectory: '/var/lib/bind/keys',
    });
  });

  it('publish.yml zone_files.check_command: how to ask the nameserver whether it loaded a zone (issue 38)', () => {
    const dir = appConfig({ 'config/publish.yml': 'default:\n  enabled: true\n  zone_files:\n    directory: /z\n    check_command: [rndc, zonestatus, "{zone}"]\n' });
    expect(loadDnsConfig({ dir, env: {} }).publish.zoneFiles?.checkCommand).toEqual(['rndc', 'zonestatus', '{zone}']);
    const empty = appConfig({ 'config/publish.yml': 'default:\n  enabled: true\n  zone_files:\n    directory: /z\n    check_command: [""]\n' });
    expect(() => loadDnsConfig({ dir: empty, env: {} })).toThrow(/check_command/);
  });

  it('DNS_CONFIG_DIR: its files replace the shipped ones of the same name, the others stay (issue 39)', () => {
    const other = tempDir({ 'http.yml': 'default:\n  port: 1234\n' });
    const c = loadDnsConfig({ dir: appConfig(), env: { DNS_CONFIG_DIR: other } });
    expect(c.http.port).toBe(1234);
    // The whole file is replaced, not merged: the shipped http.yml's keep_alive_timeout_seconds is gone.
    expect(loadDnsConfig({ dir: appConfig({ 'config/http.yml': 'default:\n  keep_alive_timeout_seconds: 9\n' }), env: { DNS_CONFIG_DIR: other } })
      .http.keepAliveTimeoutSeconds).toBe(5);
    expect(c.session.secret).toBe(DEFAULT_DEV_SESSION_SECRET);
    expect(c.database.url).toBe('pglite://.data/dns-session-api');
    // Without a shipped folder the DNS_CONFIG_DIR folder is read alone.
    expect(loadDnsConfig({ dir: tempDir({ 'x.txt': '' }), env: { DNS_CONFIG_DIR: other } }).database.url).toBeUndefined();
  });

  it('${NAME} in a value is the environment variable, checked only in the sections NODE_ENV picks (issue 39)', () => {
    const dir = appConfig({
      'config/publish.yml': [
        'default:',
        '  enabled: true',
        '  powerdns:',
        '    ns1.example.com.:',
        '      url: http://${PDNS_HOST}:8081',
        '      api_key: ${PDNS_API_KEY}',
        '      server_id: $${literal}',
        'production:',
        '  poll_seconds: 5',
        'test:',
        '  max_retry_seconds: 10',
        '  powerdns:',
        '    ns1.example.com.:',
        '      api_key: ${TEST_ONLY_KEY}',
        '',
      ].join('\n'),
    });
    const env = { PDNS_HOST: 'powerdns', PDNS_API_KEY: 'k3y-from-env' };
    expect(loadDnsConfig({ dir, env }).publish.powerdns).toEqual({
      'ns1.example.com.': { url: 'http://powerdns:8081', apiKey: 'k3y-from-env', serverId: '${literal}' },
    });
    const err = configError(() => loadDnsConfig({ dir, nodeEnv: 'test', env }));
    expect(err.problems).toEqual(['publish.yml: powerdns.ns1.example.com..api_key: the environment variable TEST_ONLY_KEY is not set']);
    expect(configError(() => loadDnsConfig({ dir, env: { PDNS_HOST: 'powerdns', PDNS_API_KEY: '' } })).problems)
      .toEqual(['publish.yml: powerdns.ns1.example.com..api_key: the environment variable PDNS_API_KEY is not set']);
  });

  it('dir may be the config folder itself or its parent', () => {
    const root = appConfig();
    expect(loadDnsConfig({ dir: path.join(root, 'config'), env: {} }).http.port).toBe(3000);
    expect(loadDnsConfig({ dir: root, env: {} }).http.port).toBe(3000);
  });

  it('applies schema defaults for missing files and keys', () => {
    const c = loadDnsConfig({ dir: tempDir({ 'http.yml': 'default: {}\n' }), nodeEnv: 'test', env: {} });
    expect(c).toEqual({
      http: { host: '127.0.0.1', port: 3000, keepAliveTimeoutSeconds: 5, defaultGroup: 'NicTool', bodyLimit: 102400, zoneFileLimit: 10485760, trustedProxies: [] },
      session: { cookieName: 'sid-dnsapi', ttlSeconds: 3600, secret: DEFAULT_DEV_SESSION_SECRET, secure: false },
      database: { url: undefined, preparedStatements: true },
      log: { level: 'info', file: undefined },
      security: { bcryptCost: 10, loginAttemptsPerClient: 30, loginAttemptsPerAccount: 10, loginsPerClient: 300 },
      quotas: { zonesPerGroup: 10000, recordsPerZone: 100000 },
      publish: NO_PUBLISH,
      telemetry: NO_TELEMETRY,
      auth: NO_AUTH,
      dns: NO_DNS,
      env: 'test',
    });
  });

  it('dns.yml: the DNS listener (issue 44), off by default; transfer peers by absolute zone name, checked as addresses', () => {
    const on = appConfig({ 'config/dns.yml': 'default:\n  enabled: true\n  port: 5300\n  tsig_secret_key: a-long-enough-sealing-key\n  transfer_peers:\n    Example.COM: [192.0.2.1, 10.0.0.0/8]\n' });
    expect(loadDnsConfig({ dir: on, env: {} }).dns).toEqual({
      ...NO_DNS, enabled: true, port: 5300, tsigSecretKey: 'a-long-enough-sealing-key', transferPeers: { 'example.com.': ['192.0.2.1', '10.0.0.0/8'] },
    });
    const notify = appConfig({ 'config/dns.yml': 'default:\n  notify:\n    example.com: [192.0.2.53, "127.0.0.1:5300", "[2001:db8::53]:5353", "2001:db8::1"]\n' });
    expect(loadDnsConfig({ dir: notify, env: {} }).dns.notify).toEqual({ 'example.com.': [
      { address: '192.0.2.53', port: 53 }, { address: '127.0.0.1', port: 5300 }, { address: '2001:db8::53', port: 5353 }, { address: '2001:db8::1', port: 53 },
    ] });
    // A secondary listed with a TSIG key (a key made through the API, by name) is sent the NOTIFY signed with it.
    const signed = appConfig({ 'config/dns.yml': 'default:\n  notify:\n    example.com:\n      - { address: "192.0.2.53:5300", key: Peer.Example. }\n      - 192.0.2.54\n' });
    expect(loadDnsConfig({ dir: signed, env: {} }).dns.notify).toEqual({ 'example.com.': [{ address: '192.0.2.53', port: 5300, key: 'peer.example' }, { address: '192.0.2.54', port: 53 }] });
    const badSigned = appConfig({ 'config/dns.yml': 'default:\n  notify:\n    example.com:\n      - { address: "192.0.2.53", keys: x }\n' });
    expect(() => loadDnsConfig({ dir: badSigned, env: {} })).toThrow();
    const badNotify = appConfig({ 'config/dns.yml': 'default:\n  notify:\n    example.com: ["ns2.example.com"]\n' });
    expect(configError(() => loadDnsConfig({ dir: badNotify, env: {} })).problems.join('\n')).toMatch(/expected an address, optionally with :port/);
    const bad = appConfig({ 'config/dns.yml': 'default:\n  transfer_peers:\n    example.com: [nowhere]\n' });
    expect(configError(() => loadDnsConfig({ dir: bad, env: {} })).problems.join('\n')).toMatch(/dns\.yml: default\.transfer_peers\.example\.com: expected IP addresses or CIDR blocks/);
    const sources = appConfig({ 'config/dns.yml': 'default:\n  transfer_sources_allowed: [127.0.0.1, "fe80::/10"]\n' });
    expect(loadDnsConfig({ dir: sources, env: {} }).dns.transferSourcesAllowed).toEqual(['127.0.0.1', 'fe80::/10']);
    const badSources = appConfig({ 'config/dns.yml': 'default:\n  transfer_sources_allowed: [localhost]\n' });
    expect(configError(() => loadDnsConfig({ dir: badSources, env: {} })).problems.join('\n')).toMatch(/transfer_sources_allowed: expected IP addresses or CIDR blocks/);
  });

  it('dns.yml: secondary zones refresh within bounds; production never under 30 s', () => {
    const yml = { 'config/dns.yml': 'default:\n  secondary_min_refresh_seconds: 1\n  secondary_max_refresh_seconds: 600\n  secondary_poll_seconds: 0.5\n' };
    expect(loadDnsConfig({ dir: appConfig(yml), nodeEnv: 'test', env: {} }).dns).toMatchObject({
      secondaryRefresh: true, secondaryMinRefreshSeconds: 1, secondaryMaxRefreshSeconds: 600, secondaryPollSeconds: 0.5, transferSourcesAllowed: [],
    });
    const prod = loadDnsConfig({ dir: appConfig(yml), nodeEnv: 'production', env: { SESSION_SECRET: PROD_SECRET, DATABASE_URL: 'postgres://dns@db/dns' } });
    expect(prod.dns).toMatchObject({ secondaryMinRefreshSeconds: 30, secondaryMaxRefreshSeconds: 600 });
  });

  it('reports YAML problems with file, section and key path', () => {
    const dir = appConfig({
      'config/session.yml': 'default:\n  ttl_seconds: 3600\ntest:\n  ttl_seconds: soon\n  secure: yes-please\n',
      'config/security.yml': 'default:\n  bcrypt_cost: 3\n',
      'config/log.yml': 'default:\n  level: loud\n',
      'config/http.yml': 'default:\n  body_limit: lots\n',
    });
    expect(configError(() => loadDnsConfig({ dir, nodeEnv: 'test', env: {} })).problems).toEqual([
      'http.yml: default.body_limit: expected a byte count such as 102400, "100kb" or "1mb", got "lots"',
      'session.yml: test.ttl_seconds: expected a number, got "soon"',
      'session.yml: test.secure: expected a boolean, got "yes-please"',
      'log.yml: default.level: expected one of panic, fatal, error, warn, info, debug, trace, silent, got "loud"',
      'security.yml: default.bcrypt_cost: expected a number of at least 4, got 3',
    ]);
  });

  it('auth.yml: the auth server\'s tokens, off by default; the JWKS URL follows the server URL', () => {
    const on = appConfig({ 'config/auth.yml': 'default:\n  enabled: false\ndevelopment:\n  enabled: true\n  url: http://127.0.0.1:8081/auth/v1/\n  auto_link_by_verified_email: true\n' });
    expect(loadDnsConfig({ dir: on, env: {} }).auth).toEqual({
      ...NO_AUTH, enabled: true, url: 'http://127.0.0.1:8081/auth/v1', jwksUrl: 'http://127.0.0.1:8081/auth/v1/.well-known/jwks.json', autoLinkByVerifiedEmail: true,
    });
    const hs = appConfig({ 'config/auth.yml': `default:\n  enabled: true\n  url: https://auth.example.com\n  jwt_secret: ${'s'.repeat(40)}\n` });
    expect(loadDnsConfig({ dir: hs, env: {} }).auth).toMatchObject({ jwksUrl: undefined, jwtSecret: 's'.repeat(40) });
    const missing = appConfig({ 'config/auth.yml': 'default:\n  enabled: true\n' });
    expect(configError(() => loadDnsConfig({ dir: missing, env: {} })).problems).toEqual([
      'auth.yml: url is required when enabled (the auth server that issued the tokens)',
    ]);
  });

  it('auth.yml oidc: off by default; the secret from the environment; every missing or bad setting named', () => {
    expect(loadDnsConfig({ dir: appConfig(), env: {} }).auth.oidc).toBeUndefined();
    const on = appConfig({ 'config/auth.yml': 'default:\n  oidc:\n    enabled: true\n    issuer: https://auth.example.com/auth/v1\n    client_id: dns-api\n' +
      '    client_secret: ${DNS_OIDC_SECRET}\n    redirect_uri: https://dns.example.com/session/oidc/callback\n' });
    expect(loadDnsConfig({ dir: on, env: { DNS_OIDC_SECRET: 'from-the-environment' } }).auth.oidc).toEqual({
      issuer: 'https://auth.example.com/auth/v1', clientId: 'dns-api', clientSecret: 'from-the-environment', scopes: ['openid', 'email'],
      redirectUri: 'https://dns.example.com/session/oidc/callback', label: 'Sign in with Keyzone', linkByVerifiedEmail: false, discoveryRefreshSeconds: 3600,
    });
    const bad = appConfig({ 'config/auth.yml': 'default:\n  oidc:\n    enabled: true\n    scopes: [email]\n    redirect_uri: https://dns.example.com/elsewhere\n' });
    const problems = configError(() => loadDnsConfig({ dir: bad, env: {} })).problems;
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^auth.yml: .*oidc.scopes.*must include openid/)]));
    const missing = appConfig({ 'config/auth.yml': 'default:\n  oidc:\n    enabled: true\n    redirect_uri: https://dns.example.com/elsewhere\n' });
    expect(configError(() => loadDnsConfig({ dir: missing, env: {} })).problems).toEqual([
      'auth.yml: oidc.issuer is required when oidc.enabled',
      'auth.yml: oidc.client_id is required when oidc.enabled',
      "auth.yml: oidc.redirect_uri: expected this API's external URL followed by /session/oidc/callback",
    ]);
    const plain = appConfig({ 'config/auth.yml': 'default:\n  oidc:\n    enabled: true\n    issuer: http://auth.example.com\n    client_id: dns-api\n' +
      '    redirect_uri: https://dns.example.com/session/oidc/callback\n' });
    expect(configError(() => loadDnsConfig({ dir: plain, nodeEnv: 'production', env: { SESSION_SECRET: PROD_SECRET, DATABASE_URL: 'postgres://db/dns' } })).problems)
      .toEqual(['auth.yml: oidc.issuer: expected an https:// URL in production']);
  });

  it('telemetry: telemetry.yml with the auth server\'s environment variables winning', () => {
    const dir = appConfig({ 'config/telemetry.yml': 'default:\n  metrics_enabled: true\n  metrics_exporter: prometheus\n  resource_attributes:\n    team: dns\n' });
    expect(loadDnsConfig({ dir, env: {} }).telemetry).toEqual({ ...NO_TELEMETRY, metricsEnabled: true, metricsExporter: 'prometheus', resourceAttributes: { team: 'dns' } });
    const fromEnv = loadDnsConfig({
      dir,
      env: { TRACING_ENABLED: 'true', METRICS_ENABLED: 'false', OTEL_EXPORTER_PROMETHEUS_PORT: '9464', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod%20eu', DEBUG: '1' },
    }).telemetry;
    expect(fromEnv).toMatchObject({ tracingEnabled: true, metricsEnabled: false, prometheusPort: 9464, debug: true, resourceAttributes: { team: 'dns', 'deployment.environment': 'prod eu' } });
    expect(configError(() => loadDnsConfig({ dir, env: { TRACING_ENABLED: 'yes', METRICS_EXPORTER: 'statsd' } })).problems).toEqual([
      'TRACING_ENABLED: expected true or false, got "yes"',
      'METRICS_EXPORTER: expected prometheus or opentelemetry, got "statsd"',
    ]);
  });

  it('is deeply frozen', () => {
    const c = loadDnsConfig({ dir: appConfig(), env: {} });
    expect(Object.isFrozen(c) && Object.isFrozen(c.http) && Object.isFrozen(c.session)).toBe(true);
  });

  describe('production refusals', () => {
    const refuse = (env: Record<string, string>, extra?: Record<string, string>) =>
      configError(() => loadDnsConfig({ dir: appConfig(extra), nodeEnv: 'production', env })).problems;

    it('refuses the shipped development secret and a missing database URL', () => {
      expect(refuse({})).toEqual([
        'SESSION_SECRET: required in production (set it, or secret in the production section of session.yml)',
        'DATABASE_URL: required in production (set it, or url in the production section of database.yml)',
      ]);
      // Set on purpose, the shipped secret is named as such, not as missing (issue 39).
      expect(refuse({ SESSION_SECRET: DEFAULT_DEV_SESSION_SECRET, DATABASE_URL: 'postgres://db/dns' })).toEqual([
        'SESSION_SECRET: the shipped development secret is refused in production; set your own (`openssl rand -base64 32`)',
      ]);
    });

    it('refuses a patterned session secret and a weak auth.yml jwt_secret (issue 39)', () => {
      expect(refuse({ SESSION_SECRET: 'ab'.repeat(20), DATABASE_URL: 'postgres://db/dns' }))
        .toEqual([expect.stringMatching(/^SESSION_SECRET: too predictable for production/)]);
      expect(refuse({ SESSION_SECRET: PROD_SECRET, DATABASE_URL: 'postgres://db/dns' }, {
        'config/auth.yml': `default:\n  enabled: true\n  url: https://auth.example.com\n  jwt_secret: ${'z'.repeat(32)}\n`,
      })).toEqual([expect.stringMatching(/^auth.yml: jwt_secret: too predictable for production/)]);
    });

    it('refuses a missing secret when the YAML has none', () => {
      expect(refuse({ DATABASE_URL: 'postgres://db/dns' }, { 'config/session.yml': 'default: {}\n' }))
        .toEqual([expect.stringMatching(/^SESSION_SECRET: required in production/)]);
    });

    it('refuses a short secret, naming where it came from', () => {
      expect(refuse({ SESSION_SECRET: 'short', DATABASE_URL: 'postgres://db/dns' }))
        .toEqual(['SESSION_SECRET: expected at least 32 characters in production']);
      expect(refuse({ DATABASE_URL: 'postgres://db/dns' }, {
        'config/session.yml': 'default:\n  secret: dev\nproduction:\n  secret: tiny\n',
      })).toEqual(['session.yml: production.secret: expected at least 32 characters in production']);
    });

    it('accepts secret and database URL from the production sections', () => {
      const c = loadDnsConfig({
        dir: appConfig({
          'config/session.yml': `default:\n  secret: ${DEFAULT_DEV_SESSION_SECRET}\nproduction:\n  secret: ${PROD_SECRET}\n`,
          'config/database.yml': 'default: {}\nproduction:\n  url: postgres://db/dns\n',
        }),
        nodeEnv: 'production', env: {},
      });
      expect(c.session.secret).toBe(PROD_SECRET);
      expect(c.session.secure).toBe(true);
      expect(c.database.url).toBe('postgres://db/dns');
    });
  });
});
