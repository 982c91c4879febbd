// The one object handed down from main.ts (or a test) to createApp and every service.
// Nothing in src/ reads process.env or opens connections except main.ts.
import type https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AuthConfig } from '@keyzone/config';
import type { JwtService } from '@keyzone/tokens';
import type { Logger } from 'pino';
import type { Telemetry } from '@keyzone/telemetry';
import type { Clock } from './clock';
import type { Mailer } from './mail/mailer';
import type { AuthDb } from './queries/db';
import type { SmsSender } from './services/phone/sms-sender';

export interface Deps {
  config: AuthConfig;
  db: AuthDb;
  jwt: JwtService;
  /** src/mail/ (SMTP, or the log transport in development); undefined when not wired. */
  mailer: Mailer | undefined;
  sms: SmsSender | undefined;
  clock: Clock;
  log: Logger;
  /** Tracing and metrics (TRACING_ENABLED / METRICS_ENABLED); undefined when both are off or in tests. */
  telemetry?: Telemetry;
  /**
   * Tests: an agent whose `ca` the outbound guard trusts besides Node's (services/platform/outbound.ts), where the
   * server fetches URLs an admin named (custom providers, SAML metadata_url).
   */
  outboundHttpsAgent?: https.Agent;
  /** Tests: name resolution for the outbound guard (a hosts file of their own); default dns.lookup. */
  outboundLookup?: LookupFunction;
}
