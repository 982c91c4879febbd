// The one object handed down from main.ts (or a test) to createApp and every service.
// Nothing in src/ reads process.env or opens connections except main.ts.
import type https from 'node:https';
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
  /** Outgoing HTTPS where the server fetches documents an admin named (SAML metadata_url); default Node's agent. */
  outboundHttpsAgent?: https.Agent;
}
