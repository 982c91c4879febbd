// The DNS session API's configuration (camelCase; YAML files use snake_case keys, NicTool style).
import type { LogLevel } from '../auth/schema';

export const DNS_ENVIRONMENTS = ['production', 'development', 'test'] as const;
export type DnsEnvironment = (typeof DNS_ENVIRONMENTS)[number];

/**
 * The development session secret shipped in the app's session.yml. Outside production it is the fallback;
 * in production loadDnsConfig refuses it (and any secret shorter than 32 characters).
 */
export const DEFAULT_DEV_SESSION_SECRET = 'keyzone-dev-session-secret-change-me-in-production';

export interface DnsConfig {
  http: {
    host: string;                      // http.yml host, default '127.0.0.1'
    port: number;                      // http.yml port (env PORT wins), default 3000
    keepAliveTimeoutSeconds: number;   // http.yml keep_alive_timeout_seconds, default 5
    defaultGroup: string;              // http.yml default_group, default 'NicTool'
    bodyLimit: number;                 // http.yml body_limit: bytes, or "100kb"/"1mb"; default 102400
    zoneFileLimit: number;             // http.yml zone_file_limit: largest text/dns zone import; default 10 MB
    trustedProxies: string[];          // http.yml trusted_proxies (env TRUSTED_PROXIES wins): proxies' addresses/CIDRs
  };
  session: {
    cookieName: string;                // session.yml cookie_name, default 'sid-dnsapi'
    ttlSeconds: number;                // session.yml ttl_seconds, default 3600
    secret: string;                    // session.yml secret (env SESSION_SECRET wins); see DEFAULT_DEV_SESSION_SECRET
    secure: boolean;                   // session.yml secure, default true in production, else false
  };
  database: {
    url: string | undefined;           // database.yml url (env DATABASE_URL wins); required in production.
    preparedStatements: boolean;       // database.yml prepared_statements (env DB_PREPARED_STATEMENTS wins), default
                                       // true; false (or ?pgbouncer=true on the URL) behind a transaction-mode pooler
                                       // Unset elsewhere: the app picks defaultDatabaseUrl('dns-session-api').
  };
  log: {
    level: LogLevel;                    // log.yml level, default info
    file: string | undefined;          // log.yml file
  };
  security: {
    bcryptCost: number;                // security.yml bcrypt_cost, default 10, 4..15
    loginAttemptsPerClient: number;    // security.yml login_attempts_per_client: failed logins per client address per 5 minutes (shared by instances), default 30; 0 = off
    loginAttemptsPerAccount: number;   // security.yml login_attempts_per_account: failed logins per account name per 5 minutes, default 10; 0 = off
    loginsPerClient: number;           // security.yml logins_per_client: every login, successful or not, per client address per 5 minutes, default 300; 0 = off
  };
  publish: {
    enabled: boolean;                  // publish.yml enabled: the publisher runs, default false
    pollSeconds: number;               // poll_seconds: how often queued jobs are looked for (writes here start it at once), default 2
    timeoutSeconds: number;            // timeout_seconds for one PowerDNS call or reload command, default 10
    maxRetrySeconds: number;           // max_retry_seconds: the longest wait between retries of a failing job, default 300
    powerdns: Record<string, { url: string; apiKey: string; serverId: string }>; // by nameserver name (absolute, lowercase)
    zoneFiles: { directory: string; includeFile: string; reloadCommand: string[]; keyDirectory?: string; checkCommand?: string[] } | undefined; // bind/nsd/knot; key_directory: BIND's keys of signed zones; check_command: did it load the zone
  };
  telemetry: {
    tracingEnabled: boolean;           // telemetry.yml tracing_enabled (env TRACING_ENABLED wins), default false
    metricsEnabled: boolean;           // telemetry.yml metrics_enabled (env METRICS_ENABLED wins), default false
    metricsExporter: 'prometheus' | 'opentelemetry'; // metrics_exporter (env METRICS_EXPORTER), default opentelemetry
    prometheusHost: string;            // prometheus_host (env OTEL_EXPORTER_PROMETHEUS_HOST), default 0.0.0.0
    prometheusPort: number;            // prometheus_port (env OTEL_EXPORTER_PROMETHEUS_PORT), default 9100
    resourceAttributes: Record<string, string>; // resource_attributes, merged under env OTEL_RESOURCE_ATTRIBUTES
    debug: boolean;                    // debug (env DEBUG), default false
  };
  quotas: {
    zonesPerGroup: number;             // quotas.yml zones_per_group: live zones in one group, default 10,000; 0 = no limit
    recordsPerZone: number;            // quotas.yml records_per_zone: live records in one zone, default 100,000; 0 = no limit
  };
  auth: {
    enabled: boolean;                  // auth.yml enabled: accept the auth server's access tokens, default false
    url: string | undefined;           // auth.yml url: the auth server's base URL (required when enabled)
    jwksUrl: string | undefined;       // auth.yml jwks_url, default <url>/.well-known/jwks.json (unless jwt_secret)
    jwtSecret: string | undefined;     // auth.yml jwt_secret: HS256 instead of the JWKS
    issuer: string | undefined;        // auth.yml issuer: the tokens' iss, when the auth server sets one
    audience: string;                  // auth.yml audience, default 'authenticated'
    sessionCheckSeconds: number;       // auth.yml session_check_seconds: how long a token's live session is trusted, default 60
    autoLinkByVerifiedEmail: boolean;  // auth.yml auto_link_by_verified_email, default false; refused while the auth
                                       // server confirms addresses by itself (/settings mailer_autoconfirm)
    requireAal2WithFactors: boolean;   // auth.yml require_aal2_with_factors: a user with a verified MFA factor must
                                       // come with an aal2 token, default true
    oidc: DnsOidcConfig | undefined;   // auth.yml oidc: signing in with an OpenID Connect provider; undefined unless enabled
  };
  dns: {
    enabled: boolean;                  // dns.yml enabled: the DNS listener runs (issue 44), default false
    address: string;                   // dns.yml address, default 127.0.0.1
    port: number;                      // dns.yml port, default 5353
    udp: boolean;                      // dns.yml udp, default true
    tcp: boolean;                      // dns.yml tcp, default true
    tsigSecretKey: string;             // dns.yml tsig_secret_key: seals TSIG secrets; default: the session secret
    fudgeSeconds: number;              // dns.yml fudge_seconds: the TSIG time window, default 300
    maxTransfers: number;              // dns.yml max_transfers: concurrent AXFR/IXFR answers, default 10
    udpAnswersPerClientPerSecond: number; // dns.yml udp_answers_per_client_per_second, default 50
    transferPeers: Record<string, string[]>; // dns.yml transfer_peers: zone (absolute, lowercase) → addresses/CIDRs
    notify: Record<string, Array<{ address: string; port: number; key?: string }>>; // dns.yml notify: zone (absolute, lowercase) → secondaries (key: the TSIG key name signing the NOTIFY)
    notifyPollSeconds: number;         // dns.yml notify_poll_seconds: how often serials are compared, default 2
    notifyRetrySeconds: number;        // dns.yml notify_retry_seconds: wait for an answer before sending again, default 15
    notifyRetries: number;             // dns.yml notify_retries: further sends after the first, default 5
    secondaryRefresh: boolean;         // dns.yml secondary_refresh: zones kept as secondaries of outside primaries are refreshed, default true
    secondaryMinRefreshSeconds: number; // dns.yml secondary_min_refresh_seconds: the primary's SOA refresh/retry are clamped to at least this (30 in production at least)
    secondaryMaxRefreshSeconds: number; // dns.yml secondary_max_refresh_seconds: … and to at most this, default 86400
    secondaryPollSeconds: number;      // dns.yml secondary_poll_seconds: how often zones due for a refresh are looked for, default 5
    transferSourcesAllowed: string[];  // dns.yml transfer_sources_allowed: loopback/link-local/… addresses or CIDRs zones may still be pulled from
  };
  env: DnsEnvironment;                 // from NODE_ENV (default development)
}

/** auth.yml `oidc:` once enabled (GET /session/oidc). */
export interface DnsOidcConfig {
  issuer: string;                      // oidc.issuer: the provider's issuer (discovery at <issuer>/.well-known/openid-configuration)
  clientId: string;                    // oidc.client_id
  clientSecret: string | undefined;    // oidc.client_secret (write ${ENV_NAME}); unset = a public client (PKCE alone)
  scopes: string[];                    // oidc.scopes, default [openid, email]; must include openid
  redirectUri: string;                 // oidc.redirect_uri: <this API's external URL>/session/oidc/callback, as registered
  label: string;                       // oidc.label: the console's button text, default 'Sign in with Keyzone'
  linkByVerifiedEmail: boolean;        // oidc.link_by_verified_email, default false: link an unlinked subject to the one
                                       // live DNS user with exactly its verified address
  discoveryRefreshSeconds: number;     // oidc.discovery_refresh_seconds: discovery cache lifetime, default 3600
}
