// Schema of the DNS service's YAML files (snake_case keys as written; NicTool style). Every setting has a
// default, so a missing file or key is fine; unknown files and keys are errors (typos surface at start-up).
import { isIP } from 'node:net';
import { z } from 'zod';
import { LOG_LEVELS } from '../auth/schema';
import { parseTrustedProxies } from '../client-address';

const DB_URL = /^(postgres|postgresql|pglite):\/\/\S+$/;

/** "100kb", "1mb", "512b" or a plain byte count → bytes. */
export function parseBytes(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  const match = /^\s*(\d+)\s*(b|kb|mb)?\s*$/i.exec(value);
  if (!match) return undefined;
  const factor = { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
  const bytes = Number(match[1]) * factor;
  return bytes > 0 ? bytes : undefined;
}

const port = z.number().int().min(0).max(65535);

/** "192.0.2.53", "192.0.2.53:5300", "2001:db8::53", "[2001:db8::53]:5300" → address and port (default 53). */
export function parseHostPort(value: string): { address: string; port: number } | undefined {
  const text = value.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(text);
  const [address, portText] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [text, undefined];
  const port = portText === undefined ? 53 : Number(portText);
  if (isIP(address) === 0 || port < 1 || port > 65535) return undefined;
  return { address, port };
}

const hostPort = z.string().refine((v) => parseHostPort(v) !== undefined, 'expected an address, optionally with :port');

export const dnsYamlSchema = z.strictObject({
  http: z.strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(3000),
    keep_alive_timeout_seconds: z.number().min(0).default(5),
    default_group: z.string().min(1).default('NicTool'),
    body_limit: z.union([z.number(), z.string()])
      .refine((v) => parseBytes(v) !== undefined, 'expected a byte count such as 102400, "100kb" or "1mb"')
      .default(102400),
    zone_file_limit: z.union([z.number(), z.string()])
      .refine((v) => parseBytes(v) !== undefined, 'expected a byte count such as 10485760, "10mb" or "512kb"')
      .default(10 * 1024 * 1024),
    trusted_proxies: z.union([z.array(z.string()), z.string()])
      .refine((v) => parseTrustedProxies(Array.isArray(v) ? v.join(',') : v) !== undefined,
        'expected IP addresses or CIDR blocks (a list, or one comma-separated string)')
      .default([]),
  }).prefault({}),
  session: z.strictObject({
    cookie_name: z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'expected a cookie name (letters, digits, -_.)')
      .default('sid-dnsapi'),
    ttl_seconds: z.number().int().min(1).default(3600),
    secret: z.string().min(1).optional(),
    secure: z.boolean().optional(),
  }).prefault({}),
  database: z.strictObject({
    url: z.string().regex(DB_URL, 'expected a postgres://, postgresql:// or pglite:// URL').optional(),
    prepared_statements: z.boolean().default(true),
  }).prefault({}),
  log: z.strictObject({
    level: z.enum(LOG_LEVELS).default('info'),
    file: z.string().min(1).optional(),
  }).prefault({}),
  security: z.strictObject({
    bcrypt_cost: z.number().int().min(4).max(15).default(10),
    login_attempts_per_client: z.number().int().min(0).default(30),
    login_attempts_per_account: z.number().int().min(0).default(10),
    logins_per_client: z.number().int().min(0).default(300),
  }).prefault({}),
  // OpenTelemetry (issue 18); TRACING_ENABLED, METRICS_ENABLED, METRICS_EXPORTER, OTEL_EXPORTER_PROMETHEUS_HOST/PORT,
  // OTEL_RESOURCE_ATTRIBUTES and DEBUG in the environment win, as for the auth server.
  telemetry: z.strictObject({
    tracing_enabled: z.boolean().default(false),
    metrics_enabled: z.boolean().default(false),
    metrics_exporter: z.enum(['prometheus', 'opentelemetry']).default('opentelemetry'),
    prometheus_host: z.string().min(1).default('0.0.0.0'),
    prometheus_port: port.default(9100),
    resource_attributes: z.record(z.string(), z.string()).default({}),
    debug: z.boolean().default(false),
  }).prefault({}),
  // Publishing zones to nameservers (issue 19): PowerDNS over its HTTP API (per nameserver name), BIND/NSD/Knot
  // as zone files in a directory plus a reload command (an argv list; {zone} is replaced by the zone name).
  publish: z.strictObject({
    enabled: z.boolean().default(false),
    poll_seconds: z.number().min(0.05).default(2),
    timeout_seconds: z.number().min(1).default(10),
    max_retry_seconds: z.number().min(1).default(300),
    powerdns: z.record(z.string().min(1), z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      api_key: z.string().min(1),
      server_id: z.string().min(1).default('localhost'),
    })).default({}),
    zone_files: z.strictObject({
      directory: z.string().min(1),
      include_file: z.string().min(1).default('keyzone-zones.conf'),
      reload_command: z.array(z.string().min(1)).default([]),
      // Asked after the reload whether the nameserver loaded the zone (argv, {zone}; e.g. rndc zonestatus {zone}):
      // it must succeed, and a `serial: N` line in its output must name the serial just written.
      check_command: z.array(z.string().min(1)).optional(),
      // Where BIND keeps the keys of signed zones (dnssec-policy); needed once a zone on a BIND nameserver is signed.
      key_directory: z.string().min(1).optional(),
    }).optional(),
  }).prefault({}),
  // Per-group limits (issue 27): any user may create zones and records; these keep one group from filling the
  // database. 0 = no limit.
  quotas: z.strictObject({
    zones_per_group: z.number().int().min(0).default(10_000),
    records_per_zone: z.number().int().min(0).default(100_000),
  }).prefault({}),
  // Keyzone speaking DNS itself (issue 44): a listener for SOA queries, zone transfers and RFC 2136 updates
  // signed with TSIG keys managed through the API. Off unless enabled; never port 53 by default.
  dns: z.strictObject({
    enabled: z.boolean().default(false),
    address: z.string().min(1).default('127.0.0.1'),
    port: port.default(5353),
    udp: z.boolean().default(true),
    tcp: z.boolean().default(true),
    // Seals the TSIG secrets in the database (AES-256-GCM under its SHA-256); unset: derived from the session secret.
    tsig_secret_key: z.string().min(16).optional(),
    fudge_seconds: z.number().int().min(1).max(3600).default(300),
    max_transfers: z.number().int().min(1).max(1000).default(10),
    udp_answers_per_client_per_second: z.number().int().min(1).default(50),
    // Addresses (or CIDR blocks) allowed to transfer a zone without a TSIG key, by zone name.
    transfer_peers: z.record(z.string().min(1), z.array(z.string().min(1))
      .refine((v) => parseTrustedProxies(v.join(',')) !== undefined, 'expected IP addresses or CIDR blocks')).default({}),
    // Secondaries sent a NOTIFY (RFC 1996) when a zone's serial changes, by zone name: "192.0.2.53", "192.0.2.53:5300", "[2001:db8::53]:53",
    // or { address: "192.0.2.53:5300", key: "<TSIG key name>" } to sign the NOTIFY with that key (one made through the API).
    notify: z.record(z.string().min(1), z.array(z.union([
      hostPort,
      z.strictObject({ address: hostPort, key: z.string().min(1).max(253).optional() }),
    ]))).default({}),
    notify_poll_seconds: z.number().min(0.1).default(2),
    notify_retry_seconds: z.number().min(0.1).default(15),
    notify_retries: z.number().int().min(0).max(20).default(5),
    // Zones kept as secondaries of an outside primary (import-axfr keep_secondary): refreshed from the primary's SOA
    // timers, clamped to these bounds so a primary cannot make Keyzone ask every second (production: at least 30 s).
    secondary_refresh: z.boolean().default(true),
    secondary_min_refresh_seconds: z.number().min(0.1).default(30),
    secondary_max_refresh_seconds: z.number().min(1).default(86400),
    secondary_poll_seconds: z.number().min(0.1).default(5),
    // Zones are pulled (import-axfr, a secondary's primary) from any public or private-network address; loopback,
    // link-local (cloud metadata), unspecified and multicast ones only when listed here, so an administrator of a
    // group cannot point the server at its own host's services.
    transfer_sources_allowed: z.array(z.string().min(1))
      .refine((v) => parseTrustedProxies(v.join(',')) !== undefined, 'expected IP addresses or CIDR blocks').default([]),
  }).prefault({}),
  // The auth server's users on this API (issue 20): off unless enabled.
  auth: z.strictObject({
    enabled: z.boolean().default(false),
    url: z.url({ protocol: /^https?$/ }).optional(),
    jwks_url: z.url({ protocol: /^https?$/ }).optional(),
    jwt_secret: z.string().min(32).optional(),
    issuer: z.string().min(1).optional(),
    audience: z.string().min(1).default('authenticated'),
    session_check_seconds: z.number().int().min(0).max(3600).default(60),
    auto_link_by_verified_email: z.boolean().default(false),
    require_aal2_with_factors: z.boolean().default(true),
    // Signing in with an OpenID Connect provider (Keyzone's auth server, Keycloak, Entra ID...): off unless enabled.
    oidc: z.strictObject({
      enabled: z.boolean().default(false),
      issuer: z.url({ protocol: /^https?$/ }).optional(),
      client_id: z.string().min(1).optional(),
      client_secret: z.string().min(1).optional(),
      scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'expected a scope name')).default(['openid', 'email'])
        .refine((v) => v.includes('openid'), 'must include openid'),
      redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
      label: z.string().min(1).max(100).default('Sign in with Keyzone'),
      link_by_verified_email: z.boolean().default(false),
      discovery_refresh_seconds: z.number().int().min(60).max(86_400).default(3600),
    }).prefault({}),
  }).prefault({}),
});

export type DnsYaml = z.output<typeof dnsYamlSchema>;
export { DB_URL };
